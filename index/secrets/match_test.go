package secrets

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/zricethezav/gitleaks/v8/config"
	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// gitleaksConfig is gitleaks' default config as gitleaks reads it.
var gitleaksConfig = sync.OnceValues(func() (config.Config, error) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return config.Config{}, err
	}
	return d.Config, nil
})

// gitleaksDetector is the detector Scan ran each rule with before match.go:
// the rule whole, its allowlists without path conditions, the config's
// global allowlists likewise.
func gitleaksDetector(t testing.TB, id string) *detect.Detector {
	t.Helper()
	c, err := gitleaksConfig()
	if err != nil {
		t.Fatal(err)
	}
	cr, ok := c.Rules[id]
	if !ok {
		t.Fatalf("gitleaks has no rule %s", id)
	}
	cr.Allowlists = withoutPaths(cr.Allowlists)
	one := config.Config{Rules: map[string]config.Rule{id: cr}, Keywords: map[string]struct{}{}, Allowlists: withoutPaths(c.Allowlists)}
	for _, k := range cr.Keywords {
		one.Keywords[strings.ToLower(k)] = struct{}{}
	}
	return detect.NewDetector(one)
}

// withoutPaths drops the path conditions of gitleaks' allowlists as
// compileAllowlists drops them from ours.
func withoutPaths(als []*config.Allowlist) []*config.Allowlist {
	var out []*config.Allowlist
	for _, a := range als {
		if len(a.Paths) == 0 {
			out = append(out, a)
			continue
		}
		if a.MatchCondition == config.AllowlistMatchAnd {
			continue
		}
		b := &config.Allowlist{Description: a.Description, MatchCondition: a.MatchCondition, Commits: a.Commits,
			RegexTarget: a.RegexTarget, Regexes: a.Regexes, StopWords: a.StopWords}
		if len(b.Commits)+len(b.Regexes)+len(b.StopWords) == 0 || b.Validate() != nil {
			continue
		}
		out = append(out, b)
	}
	return out
}

// differ runs every rule with a keyword in text through match.go and
// through gitleaks' detector, and reports where they differ. It returns
// how many findings the two agreed on.
func differ(t testing.TB, dets map[string]*detect.Detector, name, path, text string) int {
	t.Helper()
	s := rules()
	lower := strings.ToLower(text)
	agreed := 0
	for _, r := range s.rules {
		kw := false
		for _, k := range r.src.Keywords {
			kw = kw || strings.Contains(lower, strings.ToLower(k))
		}
		if !kw {
			continue
		}
		r.compiled()
		if r.err != nil {
			t.Fatal(r.err)
		}
		var got []hit
		if r.path == nil || r.path.MatchString(path) {
			got = r.find(text)
		}
		d := dets[r.id]
		if d == nil {
			d = gitleaksDetector(t, r.id)
			dets[r.id] = d
		}
		var want []hit
		for _, f := range d.Detect(detect.Fragment{Raw: text, FilePath: path}) {
			want = append(want, hit{line: f.StartLine, match: f.Match, secret: f.Secret})
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s (%s), rule %s: match.go finds %+v, gitleaks %+v", name, path, r.id, got, want)
			continue
		}
		agreed += len(got)
	}
	return agreed
}

// corpus is a set of texts with a path each.
type corpus struct {
	names, paths, texts []string
}

func (c *corpus) add(name, path, text string) {
	c.names, c.paths, c.texts = append(c.names, name), append(c.paths, path), append(c.texts, text)
}

// addTree adds the text files under root, up to limit bytes in all.
func (c *corpus) addTree(root string, limit int64) int64 {
	var size int64
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || size > limit {
			return filepath.SkipDir
		}
		if e.IsDir() && (e.Name() == ".git" || e.Name() == ".dossier" || e.Name() == "node_modules") {
			return filepath.SkipDir
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() || info.Size() > 1<<20 {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil || strings.IndexByte(string(b[:min(len(b), 8000)]), 0) >= 0 {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		c.add(p, filepath.ToSlash(rel), string(b))
		size += int64(len(b))
		return nil
	})
	return size
}

// testCorpus is the fixture, gitleaks' own rule and detector test cases
// (each literal alone, as a line `key = "literal"`, and all of a file's
// literals together), up to own bytes of this module's sources and the
// trees named by DOSSIER_SECRETS_CORPUS.
func testCorpus(t *testing.T, own int64) *corpus {
	var c corpus
	text, _ := Fixture()
	c.add("fixture", "cmd/main.go", text)
	c.add("fixture", "", text)
	c.add("fixture allowed", "a.go", strings.ReplaceAll(text, "\n", " // gitleaks:allow\n"))
	gl := gitleaksDir(t)
	files, _ := filepath.Glob(filepath.Join(gl, "cmd/generate/config/rules/*.go"))
	files = append(files, filepath.Join(gl, "detect/detect_test.go"), filepath.Join(gl, "config/allowlist_test.go"))
	if len(files) < 100 {
		t.Fatalf("%d rule files under %s: gitleaks' test cases are missing", len(files), gl)
	}
	for _, f := range files {
		lits := literals(t, f)
		name := filepath.Base(f)
		c.add(name, "src/"+strings.TrimSuffix(name, ".go")+".txt", strings.Join(lits, "\n"))
		for i, l := range lits {
			c.add(fmt.Sprintf("%s#%d", name, i), "config/app.yaml", l)
			c.add(fmt.Sprintf("%s#%d assigned", name, i), "", "secret_key = \""+l+"\"\n")
		}
	}
	c.addTree("../..", own)
	for _, dir := range filepath.SplitList(os.Getenv("DOSSIER_SECRETS_CORPUS")) {
		size := c.addTree(dir, 1<<40)
		t.Logf("%s: %d MB", dir, size>>20)
	}
	return &c
}

// gitleaksDir is the module directory of the gitleaks this module uses.
func gitleaksDir(t *testing.T) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/zricethezav/gitleaks/v8").Output()
	if err != nil || len(strings.TrimSpace(string(out))) == 0 {
		t.Fatalf("go list -m gitleaks: %v (run go mod download)", err)
	}
	return strings.TrimSpace(string(out))
}

// literals are the string literals of a Go file: gitleaks' rule sources
// and detector tests hold their true and false positives as literals.
func literals(t *testing.T, file string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING {
			if s, err := strconv.Unquote(l.Value); err == nil && len(s) > 8 {
				out = append(out, s)
			}
		}
		return true
	})
	return out
}

// TestMatchIsGitleaksDetect checks match.go against gitleaks' detector, one
// rule at a time as Scan runs them: the same findings (line, match, secret)
// in the same order, allowlists, stop words, entropy, secret groups,
// "gitleaks:allow" and path conditions included. The texts are the
// fixture, gitleaks' own rule and detector test cases (each literal alone,
// as a line `key = "literal"`, and all of a file's literals together), and
// this module's sources. DOSSIER_SECRETS_CORPUS (directories separated by
// the list separator) adds real trees.
func TestMatchIsGitleaksDetect(t *testing.T) {
	c := testCorpus(t, 64<<20)
	dets := map[string]*detect.Detector{}
	agreed := 0
	for i := range c.texts {
		agreed += differ(t, dets, c.names[i], c.paths[i], c.texts[i])
		// Windows are texts cut at line breaks: cut every text in
		// pieces of a few lines too.
		lines := strings.SplitAfter(c.texts[i], "\n")
		for j := 0; j < len(lines) && len(lines) > 4; j += 3 {
			agreed += differ(t, dets, fmt.Sprintf("%s:%d", c.names[i], j+1), c.paths[i], strings.Join(lines[j:min(j+4, len(lines))], ""))
		}
	}
	t.Logf("%d texts, %d findings agreed", len(c.texts), agreed)
	if agreed < 500 {
		t.Errorf("only %d findings: the comparison tests little", agreed)
	}
}

// TestMatchEdges are texts at the corners of gitleaks' location and
// allowlist code: a match at the very end without a line break, a match
// after the last line break, a match starting on a line break, an
// allowlisted line, stop words and low entropy.
func TestMatchEdges(t *testing.T) {
	key := secrettest.AWSKey
	dets := map[string]*detect.Detector{}
	for _, text := range []string{
		key, "\n" + key, key + "\n", "x\n" + key, "x\ny\nconst k = \"" + key + "\"",
		"aws = \"" + key + "\" // gitleaks:allow\n", "gitleaks:allow\n" + key,
		"api_key = \"abcdefghijklmnopqrst\"\n", "api_key = \"aaaaaaaaaaaaaaaaaaaa\"\n",
		"api_key = \"example-key-123456789\"\n", "password = \"${SECRET_VALUE_HERE}\"\n",
		"token:\n\n\n  \"Zq8xW3rT9vLm2NpQ7sKd4Fh\"\n", secrettest.GoFile() + "\n\n",
		// Allowlists that read the match and the line.
		"api_version = \"v1x9Qz3Lm8Kp2Rt7\"\n", "key_size: 8s9DkLz01XmQpW4r\n", "csrf_token = \"Zq8xW3rT9vLm2NpQ7sKd4Fh\"\n",
		"RUN --mount=type=secret,id=api_key=Zq8xW3rT9vLm2NpQ7sKd4Fh make\n",
		"import { token, api_key } from 'Zq8xW3rT9vLm2NpQ7sKd4Fh'\n",
		"-----BEGIN PRIVATE KEY-----\n" + strings.Repeat("MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n", 8) + "-----END PRIVATE KEY-----",
	} {
		for _, path := range []string{"", "a.go", "k8s/secret.yaml", "nuget.config"} {
			differ(t, dets, fmt.Sprintf("%q", text), path, text)
		}
	}
}
