package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// listRowRe is one row of the evidence list as drawn.
var listRowRe = regexp.MustCompile(`^[│┃][▸ ] .*\[[ x]\] \S+`)

// shownRows counts the evidence rows the view draws.
func shownRows(view string) int {
	n := 0
	for _, l := range strings.Split(view, "\n") {
		if listRowRe.MatchString(l) {
			n++
		}
	}
	return n
}

// TestListAfterShrinkAndGrow: after a small window and then a large one
// the list shows as many rows as fit, not only those below the row the
// small window scrolled to.
func TestListAfterShrinkAndGrow(t *testing.T) {
	root, e := fixture(t)
	for i := range 20 {
		name := fmt.Sprintf("extra/f%02d.go", i)
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("package extra\n\nfunc F%02d() {}\n", i)), 0o644)
		if err := e.Exec(context.Background(), []string{"evidence", "add", name, "--band", "supporting"}, io_discard{}); err != nil {
			t.Fatal(err)
		}
	}
	e.Reload()
	m := New(Options{Root: root, Engine: e, Styles: testStyles()})
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 40})
	n := len(m.snap.Rows)
	if got := shownRows(m.View()); got != n {
		t.Fatalf("at 100x40: %d rows shown of %d\n%s", got, n, m.View())
	}
	for _, start := range []string{"g", "G"} {
		m = keys(t, m, start)
		for _, small := range [][2]int{{100, 12}, {40, 5}, {100, 1}} {
			m = send(t, m, tea.WindowSizeMsg{Width: small[0], Height: small[1]})
			m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 40})
			if got := shownRows(m.View()); got != n {
				t.Errorf("%s, %dx%d, then 100x40: %d rows shown of %d\n%s", start, small[0], small[1], got, n, m.View())
			}
		}
	}
	// Grown to less than the rows: the window is full, the cursor in it.
	m = keys(t, m, "G")
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 8})
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 20})
	if got, want := shownRows(m.View()), m.listHeight(); got != want {
		t.Errorf("100x20 after 100x8: %d rows shown, %d fit", got, want)
	}
	if !strings.Contains(m.View(), "▸") {
		t.Error("the selected row is off screen")
	}
}
