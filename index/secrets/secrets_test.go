package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// Fixture is a Go file with four secrets; the second result lists them.
func Fixture() (string, []string) { return secrettest.GoFile(), secrettest.All() }

func TestScanFindsEachSecretWithLineAndRange(t *testing.T) {
	text, want := Fixture()
	fs := Scan("cmd/main.go", text)
	if len(fs) != len(want) {
		t.Fatalf("Scan found %d secrets, want %d: %+v", len(fs), len(want), fs)
	}
	rules := secrettest.Rules
	for i, f := range fs {
		if got := text[f.Start:f.End]; !strings.Contains(got, want[i][:20]) {
			t.Errorf("finding %d covers %q, want %q", i, got, want[i])
		}
		if f.Rule != rules[i] {
			t.Errorf("finding %d rule %q, want %q", i, f.Rule, rules[i])
		}
		line := strings.Count(text[:f.Start], "\n") + 1
		if f.Line != line {
			t.Errorf("finding %d line %d, want %d", i, f.Line, line)
		}
	}
}

func TestScanIgnoresOrdinaryCode(t *testing.T) {
	for _, text := range []string{
		"", "package main\n", "func key(k string) string { return k }\n",
		"token := lexer.Next()\npassword := os.Getenv(\"PW\")\n",
		"const example = \"AKIAIOSFODNN7EXAMPLE\"\n",
	} {
		if fs := Scan("a.go", text); len(fs) != 0 {
			t.Errorf("Scan(%q) = %+v, want nothing", text, fs)
		}
	}
}

// TestWindowsFindWhatTheWholeTextFinds checks the keyword windows against
// gitleaks run over the whole text, on this module's own Go sources and on
// the fixture padded with unrelated lines.
func TestWindowsFindWhatTheWholeTextFinds(t *testing.T) {
	text, _ := Fixture()
	padded := strings.Repeat("x := 1 // filler\n", 500) + text + strings.Repeat("y := 2\n", 500)
	texts := map[string]string{"fixture.go": text, "padded.go": padded}
	files, _ := filepath.Glob("../../*/*.go")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil {
			texts[f] = string(b)
		}
	}
	s := rules()
	for name, text := range texts {
		var whole []string
		for _, r := range s.rules {
			for _, f := range wholeDet(t, r).DetectString(text) {
				whole = append(whole, f.Secret)
			}
		}
		got := Scan(name, text)
		for _, sec := range whole {
			found := false
			for _, f := range got {
				if strings.Contains(text[f.Start:f.End], sec) || strings.Contains(sec, text[f.Start:f.End]) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: the whole-text scan finds %q, the windowed scan does not", name, sec)
			}
		}
	}
}

func TestRedactAndMask(t *testing.T) {
	text, secrets := Fixture()
	fs := Scan("", text)
	red := Redact(text, fs)
	masked := Mask(text, fs)
	for _, s := range secrets {
		if strings.Contains(red, s[:16]) || strings.Contains(masked, s[:16]) {
			t.Errorf("secret %q survives: redacted %q, masked %q", s, red, masked)
		}
	}
	for _, marker := range []string{"\"[REDACTED:aws-access-token]\"", "[REDACTED:github-pat]", "[REDACTED:private-key]"} {
		if !strings.Contains(red, marker) {
			t.Errorf("redacted text lacks %s:\n%s", marker, red)
		}
	}
	if !strings.Contains(masked, "\"AKIA…[REDACTED:aws-access-token]\"") {
		t.Errorf("masked text keeps no hint of the AWS key:\n%s", masked)
	}
	if Redact(text, nil) != text {
		t.Error("Redact without findings changed the text")
	}
	// Everything but the secrets is kept.
	if got := strings.Count(red, "\n"); got != strings.Count(text, "\n")-3 {
		t.Errorf("redacted text has %d lines; the PEM's 3 inner newlines should be the only ones gone", got)
	}
}

func TestShift(t *testing.T) {
	text, _ := Fixture()
	fs := Scan("", text)
	start := strings.Index(text, "func token")
	end := strings.Index(text, "\n}\n") + 3
	chunk := text[start:end]
	got := Shift(fs, start, end, strings.Count(text[:start], "\n")+1)
	if len(got) != 1 || got[0].Rule != "github-pat" || got[0].Line != 2 || chunk[got[0].Start:got[0].End] != secrettest.GitHub {
		t.Fatalf("Shift = %+v for chunk %q", got, chunk)
	}
}

func FuzzRedact(f *testing.F) {
	text, _ := Fixture()
	f.Add(text)
	f.Add("password = \"hunter2hunter2hunter2\"\n")
	f.Fuzz(func(t *testing.T, text string) {
		fs := Scan("f.txt", text)
		for i, x := range fs {
			if x.Start < 0 || x.End > len(text) || x.Start >= x.End || (i > 0 && x.Start < fs[i-1].End) {
				t.Fatalf("bad finding %+v in %q", x, text)
			}
		}
		red := Redact(text, fs)
		markers := strings.Count(red, "[REDACTED:") - strings.Count(text, "[REDACTED:")
		if markers != len(fs) {
			t.Fatalf("%d findings but %d markers in %q", len(fs), markers, red)
		}
	})
}

// TestScanEdges are the cases a review found missed or misplaced: a path
// gitleaks' allowlist skips, bytes that change length when lower-cased, a
// value after blank lines, and a secret that also occurs earlier on its
// line.
func TestScanEdges(t *testing.T) {
	key := secrettest.AWSKey
	value := "Zq8xW3rT9vLm2NpQ7sKd4Fh"
	for name, tc := range map[string]struct {
		path, text, secret, rule string
	}{
		"allowlisted path":  {"src/bootstrap.js", "const awsKey = \"" + key + "\";\n", key, "aws-access-token"},
		"vendored path":     {"vendor/github.com/x/y/k.go", "const awsKey = \"" + key + "\"\n", key, "aws-access-token"},
		"invalid UTF-8":     {"a.go", strings.Repeat("\xff", 200) + "\nx := 1\nconst k = \"" + key + "\"\n", key, "aws-access-token"},
		"Kelvin signs":      {"a.go", strings.Repeat("\u212a", 200) + "\n\n\nconst k = \"" + key + "\"\n", key, "aws-access-token"},
		"value after blank": {"a.go", "var api_key =\n\n  \"" + value + "\"\n", value, "generic-api-key"},
		"earlier on line":   {"a.go", "// token " + value[:10] + "\napi_key = \"" + value + "\" // " + value + "\n", value, "generic-api-key"},
		"named like value":  {"a.go", value + "_token = \"" + value + "\"\n", value, "generic-api-key"},
	} {
		fs := Scan(tc.path, tc.text)
		if len(fs) != 1 || fs[0].Rule != tc.rule || tc.text[fs[0].Start:fs[0].End] != tc.secret {
			t.Errorf("%s: Scan = %+v, want %s covering %q", name, fs, tc.rule, tc.secret)
			continue
		}
		if want := strings.Count(tc.text[:strings.Index(tc.text, tc.secret)], "\n") + 1; fs[0].Line != want {
			t.Errorf("%s: line %d, want %d", name, fs[0].Line, want)
		}
	}
	for _, kw := range rules().kw {
		for i := 0; i < len(kw); i++ {
			if kw[i] >= 0x80 {
				t.Fatalf("keyword %q is not ASCII: asciiLower would miss it", kw)
			}
		}
	}
}

// TestFarReachingRules compares Scan with every rule run over the whole
// text, for rules whose matches reach far from their keywords: a
// Kubernetes secret with its data well below its kind, and a NuGet
// password after many blank lines.
func TestFarReachingRules(t *testing.T) {
	labels := strings.Repeat("    label: value\n", 10)
	for path, text := range map[string]string{
		"deploy/s.yaml":       "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\n  labels:\n" + labels + "data:\n  password: c2VjcmV0cGFzc3dvcmQxMjM0NQ==\n",
		"deploy/first.yaml":   "data:\n  password: c2VjcmV0cGFzc3dvcmQxMjM0NQ==\nmetadata:\n  labels:\n" + labels + "kind: Secret\n",
		"nuget.config":        "<packageSourceCredentials><feed>\n<add key=\"ClearTextPassword\"" + strings.Repeat("\n", 11) + " value=\"hunter2hunter2x\" />\n</feed></packageSourceCredentials>\n",
		"curl.sh":             "curl https://example.com \\\n  -X POST \\\n  -H 'Accept: a' \\\n  -u \"admin:Sup3rS3cretPassw0rd\"\n",
		"deploy/secrets.yaml": "kind: Secret\n" + labels + "data:\n  token: dG9rZW4tdmFsdWUtMTIzNDU2Nzg5MA==\n",
	} {
		var whole []string
		for _, r := range rules().rules {
			for _, f := range wholeDet(t, r).Detect(detect.Fragment{Raw: text, FilePath: path}) {
				whole = append(whole, f.Secret)
			}
		}
		if len(whole) == 0 {
			t.Errorf("%s: gitleaks finds nothing; the case tests nothing", path)
		}
		got := Scan(path, text)
		for _, sec := range whole {
			found := false
			for _, f := range got {
				found = found || strings.Contains(text[f.Start:f.End], sec) || strings.Contains(sec, text[f.Start:f.End])
			}
			if !found {
				t.Errorf("%s: gitleaks finds %q, Scan does not (%+v)", path, sec, got)
			}
		}
	}
}

// TestEveryRuleCompiles compiles each rule of the default config, as a scan
// does when a text holds one of its keywords.
func TestEveryRuleCompiles(t *testing.T) {
	if err := Load(); err != nil {
		t.Fatal(err)
	}
	if n := len(rules().rules); n < 150 {
		t.Fatalf("%d rules loaded, want gitleaks' default set (~220)", n)
	}
}

// TestScanFindsWhatGitleaksFinds proves the rules, compiled one by one as
// texts need them, find every secret gitleaks' own default detector finds.
func TestScanFindsWhatGitleaksFinds(t *testing.T) {
	text, secrets := Fixture()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	want := d.DetectString(text)
	if len(want) < len(secrets)/2 {
		t.Fatalf("gitleaks finds %d secrets in the fixture of %d: the test tests little", len(want), len(secrets))
	}
	got := Scan("fixture.go", text)
	for _, w := range want {
		found := false
		for _, f := range got {
			found = found || strings.Contains(text[f.Start:f.End], w.Secret) || strings.Contains(w.Secret, text[f.Start:f.End])
		}
		if !found {
			t.Errorf("gitleaks finds %q (%s), Scan does not", w.Secret, w.RuleID)
		}
	}
}

func wholeDet(t *testing.T, r *rule) *detect.Detector { return gitleaksDetector(t, r.id) }
