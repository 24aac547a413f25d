package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// flowWorkspace is a small repository with an index and a current flow.
func flowWorkspace(t *testing.T) string {
	t.Helper()
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var sh strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&sh, "echo line %d\n", i)
	}
	write("core/flow.sh", sh.String())
	write("parser/parse.go", `package parser

import "errors"

// ErrSyntax is returned for input that does not parse.
var ErrSyntax = errors.New("syntax error")

// Parse reads one expression and handles errors by wrapping them.
func Parse(src string) (string, error) {
	if src == "" {
		return "", ErrSyntax
	}
	return normalize(src), nil
}

func normalize(s string) string {
	return s + "!"
}
`)
	write("parser/parse_test.go", `package parser

import "testing"

func TestParse(t *testing.T) {
	if _, err := Parse(""); err == nil {
		t.Fatal("want an error")
	}
}
`)
	write("render/render.go", `package render

// Render draws the tree with colours and widths.
func Render(tree string) string {
	return "<" + tree + ">"
}
`)
	if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	if out, errOut, code := runCLI(t, "flow", "new", "fix parser", "--root", root, "--request", "Fix the parser's error handling."); code != 0 {
		t.Fatalf("flow new: exit %d %s %s", code, out, errOut)
	}
	return root
}

// must runs the CLI and fails the test on a non-zero exit.
func must(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("dossier %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// flowDir is the current flow of root.
func flowDir(t *testing.T, root string) string {
	t.Helper()
	id, err := os.ReadFile(filepath.Join(root, ".dossier", "flows", "current"))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, ".dossier", "flows", strings.TrimSpace(string(id)))
}

// tree lists a flow's files (not build/) with their contents, to prove a
// failed command left the flow as it was.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasPrefix(rel, "build") {
			return nil
		}
		if info.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			lines = append(lines, rel+" -> "+target)
			return nil
		}
		if !info.IsDir() {
			raw, _ := os.ReadFile(p)
			lines = append(lines, rel+"\n"+string(raw))
		}
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n---\n")
}

func TestEvidenceAddToggleRankRebaseRemove(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	out := must(t, "evidence", "add", "core/flow.sh::100,200#flow,manager", r)
	for _, want := range []string{"✓ Added evidence: 100_flow_sh_100_200.evidence.md", "Bytes:", "tokens, o200k_base", "Total context:", "Budget:"} {
		if !strings.Contains(out, want) {
			t.Errorf("add feedback lacks %q:\n%s", want, out)
		}
	}
	dir := flowDir(t, root)
	part, err := os.ReadFile(filepath.Join(dir, "ctx", "evidence", "100_flow_sh_100_200.evidence.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(part), "## Evidence: core/flow.sh\n<!-- source_uri=file://core/flow.sh; cid=sha256:") ||
		!strings.Contains(string(part), "; span=lines=100:200; tags=flow,manager -->") ||
		!strings.Contains(string(part), "```bash\necho line 100\n") || !strings.Contains(string(part), "echo line 200\n```\n") ||
		strings.Contains(string(part), "echo line 201") {
		t.Errorf("part file:\n%s", part)
	}
	must(t, "evidence", "add", "parser/parse.go::@Parse", r)
	must(t, "evidence", "add", "@Render", "--band", "peripheral", r)
	must(t, "evidence", "add", "parser/parse_test.go", "--rank", "250", r)

	out = must(t, "evidence", "toggle", "off", "100-199", r)
	if !strings.Contains(out, "100_flow_sh_100_200.evidence.md.skip: skipped") {
		t.Errorf("toggle off:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ctx", "evidence", "110_parse_go_parse.evidence.md.skip")); err != nil {
		t.Errorf("range toggle did not skip 110: %v", err)
	}
	must(t, "evidence", "toggle", "on", "110", r)
	must(t, "evidence", "toggle", "100_flow_sh_100_200", r)

	out = must(t, "evidence", "status", "--json", r)
	var st struct {
		Parts []struct {
			ID     string   `json:"id"`
			States []string `json:"states"`
			Tokens int      `json:"tokens"`
		} `json:"parts"`
		Tokens int `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	var ids []string
	for _, p := range st.Parts {
		ids = append(ids, p.ID+":"+p.States[0])
		if p.Tokens <= 0 {
			t.Errorf("part %s has %d tokens", p.ID, p.Tokens)
		}
	}
	want := "010_request:active 100_flow_sh_100_200:active 110_parse_go_parse:active 250_parse_test_go:active 300_render_go_render:active"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("parts\n got %s\nwant %s", got, want)
	}

	// A taken rank is refused and the flow is left as it was.
	before := tree(t, dir)
	_, errOut, code := runCLI(t, "evidence", "rank", "300_render_go_render", "110", r)
	if code != 1 || !strings.Contains(errOut, "rank 110 is taken by 110_parse_go_parse") || !strings.Contains(errOut, "free nearby") {
		t.Errorf("rank to a taken rank: exit %d %s", code, errOut)
	}
	if tree(t, dir) != before {
		t.Error("a refused rank changed the flow")
	}
	must(t, "evidence", "rank", "300_render_go_render", "120", r)
	out = must(t, "evidence", "rebase", r)
	if !strings.Contains(out, "250_parse_test_go -> 200_parse_test_go") {
		t.Errorf("rebase:\n%s", out)
	}
	must(t, "evidence", "remove", "200_parse_test_go", r)
	if _, err := os.Stat(filepath.Join(dir, "build", "removed", "200_parse_test_go.evidence.md")); err != nil {
		t.Errorf("removed part not kept: %v", err)
	}
	out = must(t, "evidence", "status", r)
	if strings.Contains(out, "parse_test") || !strings.Contains(out, "120_render_go_render") {
		t.Errorf("status after rank/rebase/remove:\n%s", out)
	}
}

func TestEvidenceBadInputLeavesFlowIntact(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "core/flow.sh::1,10", r)
	dir := flowDir(t, root)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"evidence", "add", "../etc/passwd"}, 1, "leaves the workspace"},
		{[]string{"evidence", "add", filepath.Join(outside, "secret.txt")}, 1, "outside the workspace"},
		{[]string{"evidence", "add", "escape.txt"}, 1, "is a symlink to"},
		{[]string{"evidence", "add", "core/flow.sh::400"}, 1, "past the end of core/flow.sh (300 lines)"},
		{[]string{"evidence", "add", "core/flow.sh::10,x"}, 2, "at column 18"},
		{[]string{"evidence", "add", "core/flow.sh::20,10"}, 2, "ends (10) before it starts (20)"},
		{[]string{"evidence", "add", "nope.go"}, 1, "no such file: nope.go"},
		{[]string{"evidence", "add", "core/flow.sh::1,10"}, 1, "already in the flow as 100_flow_sh_1_10"},
		{[]string{"evidence", "add", "core/flow.sh", "--rank", "100"}, 1, "rank 100 is taken by 100_flow_sh_1_10"},
		{[]string{"evidence", "add", "@NoSuchThing"}, 1, "no symbol @NoSuchThing"},
		{[]string{"evidence", "add", "parser/parse.go::@Prase"}, 1, "did you mean Parse"},
		{[]string{"evidence", "toggle", "999_nothing"}, 1, "no part \"999_nothing\""},
		{[]string{"evidence", "tgogle", "100"}, 2, "did you mean `evidence toggle`"},
		{[]string{"evidence", "budget", "set", "lots"}, 2, "bad token count"},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(t, append(c.args, r)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d (want %d)\nstdout %s\nstderr %s\nwant %q", c.args, code, c.code, out, errOut, c.want)
		}
	}
	if got := tree(t, dir); got != before {
		t.Errorf("bad input changed the flow:\nbefore\n%s\nafter\n%s", before, got)
	}

	// Hand-made trouble is reported, never deleted.
	ev := filepath.Join(dir, "ctx", "evidence")
	os.WriteFile(filepath.Join(ev, "notes.txt"), []byte("mine\n"), 0o644)
	os.WriteFile(filepath.Join(ev, "100_dup.evidence.md"), []byte("dup\n"), 0o644)
	out := must(t, "evidence", "status", r)
	if !strings.Contains(out, "ctx/evidence/notes.txt: not a part name") || !strings.Contains(out, "rank 100 is used by 100_dup and 100_flow_sh_1_10") {
		t.Errorf("status does not report the problems:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(ev, "notes.txt")); err != nil {
		t.Error("an unrecognised file was deleted")
	}
	_, errOut, code := runCLI(t, "evidence", "toggle", "100", r)
	if code != 1 || !strings.Contains(errOut, "rank 100 names 2 parts") {
		t.Errorf("ambiguous rank: exit %d %s", code, errOut)
	}
}

func TestEvidenceReadOnlyFlow(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "core/flow.sh::1,10", r)
	dir := flowDir(t, root)
	ev := filepath.Join(dir, "ctx", "evidence")
	os.Chmod(ev, 0o555)
	defer os.Chmod(ev, 0o755)
	if f, err := os.CreateTemp(ev, "probe"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skip("running with privileges that ignore directory permissions")
	}
	before := tree(t, dir)
	_, errOut, code := runCLI(t, "evidence", "add", "core/flow.sh::20,30", r)
	if code != 1 || !strings.Contains(errOut, "read-only") {
		t.Errorf("add to a read-only flow: exit %d %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "evidence", "toggle", "100", r)
	if code != 1 || !strings.Contains(errOut, "read-only") {
		t.Errorf("toggle in a read-only flow: exit %d %s", code, errOut)
	}
	if tree(t, dir) != before {
		t.Error("a failed write changed the flow")
	}
}
