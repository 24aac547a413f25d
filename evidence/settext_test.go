package evidence

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newTestEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	root := t.TempDir()
	e := NewEngine(root)
	e.Getenv = func(string) string { return "" }
	return e, root
}

func run(t *testing.T, e *Engine, words ...string) string {
	t.Helper()
	var w bytes.Buffer
	if err := e.Exec(context.Background(), words, &w); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(words, " "), err, w.String())
	}
	return w.String()
}

func readPart(t *testing.T, e *Engine, which string) (string, string) {
	t.Helper()
	e.Reload()
	f, err := e.Flow()
	if err != nil {
		t.Fatal(err)
	}
	p := f.TextPart(which)
	if p == nil {
		t.Fatalf("no %s part; parts: %v", which, f.Parts)
	}
	raw, err := os.ReadFile(p.Path)
	if err != nil {
		t.Fatal(err)
	}
	return p.Name.String(), string(raw)
}

// TestFlowSetRequestAndPolicy: `flow set request|policy TEXT` creates the
// seed's 010_request.user.md / 000_policy.system.md, and a second set
// replaces the text in the same file, whether the text came as one
// quoted word or as several.
func TestFlowSetRequestAndPolicy(t *testing.T) {
	e, _ := newTestEngine(t)
	run(t, e, "flow", "new", "fix")
	out := run(t, e, "flow", "set", "request", "fix the parser")
	if !strings.Contains(out, "✓ Added request: 010_request.user.md") {
		t.Errorf("first set says:\n%s", out)
	}
	name, text := readPart(t, e, "request")
	if name != "010_request.user.md" || text != "fix the parser\n" {
		t.Errorf("request part %s = %q", name, text)
	}
	out = run(t, e, "flow", "set", "request", "fix", "the", "lexer", "too")
	if !strings.Contains(out, "✓ Set request: 010_request.user.md") {
		t.Errorf("second set says:\n%s", out)
	}
	name, text = readPart(t, e, "request")
	if name != "010_request.user.md" || text != "fix the lexer too\n" {
		t.Errorf("request part %s = %q", name, text)
	}
	run(t, e, "flow", "set", "policy", "--", "- Answer in English.\n- Cite files.")
	name, text = readPart(t, e, "policy")
	if name != "000_policy.system.md" || text != "- Answer in English.\n- Cite files.\n" {
		t.Errorf("policy part %s = %q", name, text)
	}
	f, _ := e.Flow()
	if len(f.Parts) != 2 {
		t.Errorf("want 2 parts, have %d: %v", len(f.Parts), f.Parts)
	}
}

// TestFlowSetRequestKeepsItsRank: a request part made by hand at another
// rank is the one replaced, and its name stays.
func TestFlowSetRequestKeepsItsRank(t *testing.T) {
	e, _ := newTestEngine(t)
	run(t, e, "flow", "new", "fix")
	f, _ := e.Flow()
	os.WriteFile(filepath.Join(f.Dir, "ctx", "020_request.user.md"), []byte("old\n"), 0o644)
	os.WriteFile(filepath.Join(f.Dir, "ctx", "010_notes.user.md"), []byte("notes\n"), 0o644)
	e.Reload()
	run(t, e, "flow", "set", "request", "new text")
	name, text := readPart(t, e, "request")
	if name != "020_request.user.md" || text != "new text\n" {
		t.Errorf("request part %s = %q", name, text)
	}
	notes, _ := os.ReadFile(filepath.Join(f.Dir, "ctx", "010_notes.user.md"))
	if string(notes) != "notes\n" {
		t.Errorf("another user part changed: %q", notes)
	}
}

// TestFlowSetRequestTurnsASkippedOneOn: setting a skipped request's text
// means sending it, so the part comes back on (a skipped request would
// leave send saying there is none).
func TestFlowSetRequestTurnsASkippedOneOn(t *testing.T) {
	e, _ := newTestEngine(t)
	run(t, e, "flow", "new", "fix", "--request", "old")
	run(t, e, "evidence", "toggle", "010_request")
	run(t, e, "flow", "set", "request", "new question")
	name, text := readPart(t, e, "request")
	if name != "010_request.user.md" || text != "new question\n" {
		t.Errorf("request part %s = %q", name, text)
	}
}

// TestFlowSetRequestErrors: no text is a usage error naming what to give;
// a symlinked request is not overwritten through, nor replaced.
func TestFlowSetRequestErrors(t *testing.T) {
	e, root := newTestEngine(t)
	run(t, e, "flow", "new", "fix")
	var w bytes.Buffer
	err := e.Exec(context.Background(), []string{"flow", "set", "request"}, &w)
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "no text") {
		t.Errorf("no text: %v", err)
	}
	os.WriteFile(filepath.Join(root, "req.md"), []byte("linked\n"), 0o644)
	f, _ := e.Flow()
	if err := os.Symlink(filepath.Join(root, "req.md"), filepath.Join(f.Dir, "ctx", "010_request.user.md")); err != nil {
		t.Fatal(err)
	}
	e.Reload()
	if f, _ := e.Flow(); true {
		t.Logf("dir %s problems %v", f.Dir, f.Problems)
		for _, p := range f.Parts {
			t.Logf("%s link=%v path=%s", p.Name, p.Link, p.Path)
		}
	}
	err = e.Exec(context.Background(), []string{"flow", "set", "request", "x"}, &w)
	if err == nil || !strings.Contains(err.Error(), "is a symlink to") {
		t.Errorf("linked request: %v", err)
	}
	if raw, _ := os.ReadFile(filepath.Join(root, "req.md")); string(raw) != "linked\n" {
		t.Errorf("the linked file changed: %q", raw)
	}
}

// TestFlowSetRequestStartsAFlow: with no flow yet, setting the request
// starts one, as a first `evidence add` does.
func TestFlowSetRequestStartsAFlow(t *testing.T) {
	e, _ := newTestEngine(t)
	out := run(t, e, "flow", "set", "request", "hello")
	if !strings.Contains(out, "Started flow scratch-") {
		t.Errorf("no flow started:\n%s", out)
	}
	if _, text := readPart(t, e, "request"); text != "hello\n" {
		t.Errorf("request = %q", text)
	}
}
