package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kballard/go-shellquote"

	"github.com/dossierhq/dossier/assemble/send/sendtest"
)

// walkthroughCommands are the commands of README.md's walkthrough, in
// order: a change to the walkthrough fails the test until this list, and
// what the test checks, follow it.
var walkthroughCommands = []string{
	"index", "search", "search", "related", "flow new", "evidence add", "evidence add",
	"evidence status", "assemble", "send",
}

// TestREADMEWalkthrough runs every line of README.md's walkthrough, as
// written, with the built binaries on a fixture project: no network, the
// clipboard a file, `send` against a fake OpenAI-compatible server. So
// the first page cannot go stale.
func TestREADMEWalkthrough(t *testing.T) {
	lines := walkthrough(t)
	bin := filepath.Join(binaries(t), "dossier")
	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"Div ", "divides by b ", "without a check."}})
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "dossier"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf("[llm]\nbase_url = %q\nmodel = \"gpt-4o-mini\"\napi_key_env = \"WALKTHROUGH_KEY\"\napi = \"chat\"\n", srv.URL)
	if err := os.WriteFile(filepath.Join(home, "dossier", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"XDG_CONFIG_HOME=" + home, "XDG_CACHE_HOME=" + t.TempDir(), "WALKTHROUGH_KEY=sk-walkthrough",
		"FLOW_DIR=", "DISPLAY=", "WAYLAND_DISPLAY=", "DOSSIER_FULL=" + filepath.Join(filepath.Dir(bin), "dossier-full")}
	root := walkthroughProject(t)
	var got []string
	outputs := map[string]string{}
	for _, line := range lines {
		words, err := shellquote.Split(line)
		if err != nil || len(words) < 2 || words[0] != "dossier" {
			t.Fatalf("README.md's walkthrough line %q is not a dossier command (%v)", line, err)
		}
		name := words[1]
		if words[1] == "flow" || words[1] == "evidence" {
			name += " " + words[2]
		}
		got = append(got, name)
		r := runBinIn(t, root, bin, "", env, words[1:]...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", line, r.code, r.stdout, r.stderr)
		}
		outputs[name] += r.stdout
	}
	if !slices.Equal(got, walkthroughCommands) {
		t.Fatalf("README.md's walkthrough runs %q, the test knows %q: update walkthroughCommands and what it checks", got, walkthroughCommands)
	}
	for name, want := range map[string]string{
		"search":          "parse/parse.go",
		"related":         "parse/parse_test.go",
		"evidence status": "parse_go_div",
		"send":            "Div divides by b without a check.",
	} {
		if !strings.Contains(outputs[name], want) {
			t.Errorf("%s printed no %q:\n%s", name, want, outputs[name])
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("send made %d requests, want 1", n)
	}
}

// walkthrough is the command lines of README.md's walkthrough: the sh
// block after the walkthrough marker, comments taken off.
func walkthrough(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(raw), "<!-- walkthrough")
	_, rest, ok2 := strings.Cut(rest, "```sh\n")
	block, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("README.md has no walkthrough block (<!-- walkthrough ... --> then ```sh)")
	}
	comment := regexp.MustCompile(`\s+#\s.*$`)
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(comment.ReplaceAllString(l, "")); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// walkthroughProject is the project README.md's walkthrough names.
func walkthroughProject(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/calc\n\ngo 1.26\n",
		"parse/parse.go": "// Package parse reads arithmetic expressions.\npackage parse\n\nimport \"errors\"\n\n" +
			"// ErrEmpty is returned for an empty expression.\nvar ErrEmpty = errors.New(\"empty expression\")\n\n" +
			"// Parse reads one expression.\nfunc Parse(src string) (int, error) {\n\tif src == \"\" {\n\t\treturn 0, ErrEmpty\n\t}\n\treturn Div(len(src), 1), nil\n}\n\n" +
			"// Div divides a by b: it panics on zero, as dividing by zero does.\nfunc Div(a, b int) int { return a / b }\n",
		"parse/parse_test.go": "package parse\n\nimport \"testing\"\n\nfunc TestParse(t *testing.T) {\n\tif _, err := Parse(\"\"); err != ErrEmpty {\n\t\tt.Fatal(err)\n\t}\n}\n",
	}
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
