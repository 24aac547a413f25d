package ui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	shellquote "github.com/kballard/go-shellquote"
)

// fakeEditor writes a shell script that appends a line to the file it is
// given (or, with fail, exits 3 without touching it) and returns its path.
func fakeEditor(t *testing.T, line string, fail bool) string {
	t.Helper()
	script := "#!/bin/sh\nprintf '%s\\n' '" + line + "' >> \"$1\"\n"
	if fail {
		script = "#!/bin/sh\nexit 3\n"
	}
	p := filepath.Join(t.TempDir(), "fake editor.sh")
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// Quoted, as a shell user would: $VISUAL is split as a shell would.
	return shellquote.Join(p)
}

// probe records the latest model of a running program.
type probe struct {
	Model
	latest *atomic.Pointer[Model]
}

func (p probe) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := p.Model.Update(msg)
	m := next.(Model)
	p.latest.Store(&m)
	return probe{m, p.latest}, cmd
}

// runProgram runs the model in a real Bubble Tea program (no terminal),
// sends msgs, waits until the model satisfies until, and returns it.
func runProgram(t *testing.T, m Model, until func(Model) bool, msgs ...tea.Msg) Model {
	t.Helper()
	latest := &atomic.Pointer[Model]{}
	latest.Store(&m)
	p := tea.NewProgram(probe{m, latest}, tea.WithInput(&bytes.Buffer{}), tea.WithOutput(&bytes.Buffer{}), tea.WithoutSignalHandler())
	result := make(chan error, 1)
	go func() {
		_, err := p.Run()
		result <- err
	}()
	for _, msg := range msgs {
		p.Send(msg)
	}
	deadline := time.Now().Add(20 * time.Second)
	for !until(*latest.Load()) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	p.Quit()
	if err := <-result; err != nil {
		t.Errorf("program: %v", err)
	}
	final := *latest.Load()
	if !until(final) {
		t.Fatalf("gave up waiting; status %q", final.status)
	}
	return final
}

func partText(t *testing.T, dir, rel string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestEditorKeyEditsTheSelectedPart: E opens the selected evidence part in
// $VISUAL through tea.ExecProcess; the edit lands in the part file and the
// workbench reloads it.
func TestEditorKeyEditsTheSelectedPart(t *testing.T) {
	m, _ := newTestModel(t, nil)
	t.Setenv("VISUAL", fakeEditor(t, "// checked by hand", false))
	m = keys(t, m, "j") // 100_parse_go
	r, _ := m.selected()
	if r.ID != "100_parse_go" {
		t.Fatalf("selected %s", r.ID)
	}
	final := runProgram(t, m, func(m Model) bool { return strings.Contains(m.status, "edited") },
		tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("E")})
	if final.statusErr || final.status != "edited 100_parse_go.evidence.md" {
		t.Errorf("status %q", final.status)
	}
	if raw, _ := os.ReadFile(r.Path); !strings.HasSuffix(string(raw), "```\n// checked by hand\n") {
		t.Errorf("the part is\n%s", raw)
	}
}

// TestEditorRequestIsUndoable: /request with no text edits the request
// as a copy that is set through `flow set request`, so u puts the old
// text back.
func TestEditorRequestIsUndoable(t *testing.T) {
	m, _ := newTestModel(t, nil)
	t.Setenv("EDITOR", fakeEditor(t, "Also keep empty fields.", false))
	t.Setenv("VISUAL", "")
	m = keys(t, m, ":")
	m = typeText(t, m, "/request")
	want := "Fix parsing.\nAlso keep empty fields.\n"
	final := runProgram(t, m, func(m Model) bool { return len(m.undo) > 0 && m.busy == 0 }, tea.KeyMsg{Type: tea.KeyEnter})
	if got := partText(t, final.snap.Dir, "ctx/010_request.user.md"); got != want {
		t.Errorf("after the edit the request is %q", got)
	}
	final = keys(t, final, "u")
	if got := partText(t, final.snap.Dir, "ctx/010_request.user.md"); got != "Fix parsing.\n" {
		t.Errorf("after undo the request is %q", got)
	}
}

// TestEditorThatFails: an editor that exits non-zero, or does not exist,
// is an error on the status line and the part is as it was.
func TestEditorThatFails(t *testing.T) {
	for _, tc := range []struct{ name, editor string }{
		{"exit status", ""},
		{"missing binary", "/no/such/editor --wait"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newTestModel(t, nil)
			ed := tc.editor
			if ed == "" {
				ed = fakeEditor(t, "", true)
			}
			t.Setenv("VISUAL", ed)
			req := filepath.Join(m.snap.Dir, "ctx", "010_request.user.md")
			final := runProgram(t, m, func(m Model) bool { return m.statusErr }, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("E")})
			if !strings.Contains(final.status, "failed") || !strings.Contains(final.status, "the request is unchanged") {
				t.Errorf("status %q", final.status)
			}
			if got, _ := os.ReadFile(req); string(got) != "Fix parsing.\n" {
				t.Errorf("the request changed: %q", got)
			}
		})
	}
}

// TestEditorKeepsAnEditThatCannotBeSet: a request that is a symlink is
// not written through; the edited copy is kept and named.
func TestEditorKeepsAnEditThatCannotBeSet(t *testing.T) {
	m, root := newTestModel(t, nil)
	req := filepath.Join(m.snap.Dir, "ctx", "010_request.user.md")
	shared := filepath.Join(root, "docs", "request.md")
	os.WriteFile(shared, []byte("Shared request.\n"), 0o644)
	os.Remove(req)
	if err := os.Symlink(shared, req); err != nil {
		t.Fatal(err)
	}
	m = send(t, m, flowChangedMsg{})
	t.Setenv("VISUAL", fakeEditor(t, "An edit.", false))
	final := runProgram(t, m, func(m Model) bool { return m.statusErr }, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("E")})
	_, kept, ok := strings.Cut(final.status, "your edit is kept in ")
	if !ok || !strings.Contains(final.status, "is a symlink") {
		t.Fatalf("status %q", final.status)
	}
	kept, _, _ = strings.Cut(kept, ": ")
	if got := partText(t, "/", kept); got != "Shared request.\nAn edit.\n" {
		t.Errorf("the kept copy holds %q", got)
	}
	os.Remove(kept)
	if got := partText(t, "/", shared); got != "Shared request.\n" {
		t.Errorf("the shared file changed: %q", got)
	}
}
