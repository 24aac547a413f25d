package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `:evidence add DIR/` of more than a handful of files shows the engine's
// preview (each file's tokens, the total against the budget) in a dialog
// and asks: n adds nothing, y adds them all through the same command.
func TestCommandLineAddAsksForAFolder(t *testing.T) {
	m, root := newTestModel(t, nil)
	if err := os.MkdirAll(filepath.Join(root, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 7 {
		text := fmt.Sprintf("package lib\n\n// F%d is file %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
		if err := os.WriteFile(filepath.Join(root, "lib", fmt.Sprintf("f%d.go", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := len(m.snap.Rows)
	add := func() Model {
		t.Helper()
		m = keys(t, m, ":")
		m = typeText(t, m, "evidence add lib/")
		m = keys(t, m, "enter")
		if m.focus != focusConfirm || m.ask == nil {
			t.Fatalf("no dialog: focus %d, status %q", m.focus, m.status)
		}
		return m
	}
	m = add()
	v := m.View()
	for _, want := range []string{"7 files to add, one part each:", "lib/f0.go", "lib/f6.go", "tokens", "Total:", "budget", "Add these 7 files? y yes · n no"} {
		if !strings.Contains(v, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, v)
		}
	}
	m = keys(t, m, "x") // any other key leaves the question open
	if m.focus != focusConfirm {
		t.Fatalf("a stray key closed the dialog")
	}
	m = keys(t, m, "n")
	if m.focus != focusList || len(m.snap.Rows) != before || !strings.Contains(m.status, "nothing added") {
		t.Fatalf("n: focus %d, %d rows (had %d), status %q", m.focus, len(m.snap.Rows), before, m.status)
	}
	m = add()
	m = keys(t, m, "y")
	if m.focus != focusList || len(m.snap.Rows) != before+7 || m.statusErr {
		t.Fatalf("y: focus %d, %d rows (want %d), status %q", m.focus, len(m.snap.Rows), before+7, m.status)
	}
}
