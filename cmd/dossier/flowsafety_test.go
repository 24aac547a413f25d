package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefreshKeepsHandNotes: any byte of a part that differs from what
// dossier wrote is a hand edit, so refresh never overwrites it silently.
func TestRefreshKeepsHandNotes(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	dir := flowDir(t, root)
	must(t, "evidence", "add", "render/render.go", "parser/parse.go::8,14", r)
	ev := filepath.Join(dir, "ctx", "evidence")
	before := filepath.Join(ev, "100_render_go.evidence.md")
	after := filepath.Join(ev, "110_parse_go_8_14.evidence.md")
	note := func(path string, at func(string) string) string {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := at(string(raw))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return text
	}
	// A note between the provenance comment and the fence, another after the fence.
	textBefore := note(before, func(s string) string {
		return strings.Replace(s, "-->\n\n", "-->\n\nNOTE: Render is called from main only.\n\n", 1)
	})
	textAfter := note(after, func(s string) string { return s + "\nNOTE: check the empty case.\n" })
	os.WriteFile(filepath.Join(root, "render", "render.go"), []byte("package render\n\n// Render draws.\nfunc Render(tree string) string { return tree }\n"), 0o644)
	os.WriteFile(filepath.Join(root, "parser", "parse.go"), []byte(strings.Repeat("// moved\n", 20)), 0o644)

	out := must(t, "evidence", "status", r)
	for _, id := range []string{"100_render_go", "110_parse_go_8_14"} {
		if !strings.Contains(lineOf(out, id), "edited") {
			t.Errorf("%s with a hand note is not marked edited:\n%s", id, out)
		}
	}
	out = must(t, "evidence", "refresh", r)
	if !strings.Contains(out, "100_render_go") || !strings.Contains(out, "edited by hand") {
		t.Errorf("refresh does not name the edited parts it left alone:\n%s", out)
	}
	for path, want := range map[string]string{before: textBefore, after: textAfter} {
		if raw, _ := os.ReadFile(path); string(raw) != want {
			t.Errorf("refresh overwrote the hand-edited %s:\n%s", filepath.Base(path), raw)
		}
	}
	_, errOut, code := runCLI(t, "evidence", "refresh", "100", r)
	if code == 0 || !strings.Contains(errOut, "edited by hand") {
		t.Errorf("refresh of a named edited part without --force: exit %d %s", code, errOut)
	}
	// --force replaces it and keeps every edited copy.
	must(t, "evidence", "refresh", "100", "--force", r)
	note(before, func(s string) string { return s + "\nSECOND NOTE\n" })
	must(t, "evidence", "refresh", "100", "--force", r)
	copies, _ := filepath.Glob(filepath.Join(dir, "build", "removed", "100_render_go.evidence.md.edited*"))
	var all string
	for _, c := range copies {
		raw, _ := os.ReadFile(c)
		all += string(raw)
	}
	if len(copies) != 2 || !strings.Contains(all, "NOTE: Render is called") || !strings.Contains(all, "SECOND NOTE") {
		t.Errorf("edited copies in build/removed: %v\n%s", copies, all)
	}
	if raw, _ := os.ReadFile(before); strings.Contains(string(raw), "NOTE") || !strings.Contains(string(raw), "return tree") {
		t.Errorf("--force did not refresh the part:\n%s", raw)
	}
}

// lineOf is the first line of out that holds s.
func lineOf(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
