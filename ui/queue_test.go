package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// keyMsg is the message of one key name as keys() sends it.
func keyMsg(k string) tea.KeyMsg {
	switch k {
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "enter":
		return tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	case "ctrl+r":
		return tea.KeyMsg{Type: tea.KeyCtrlR}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// burst delivers keys one after another without running any command in
// between, as when they arrive faster than the engine answers (typed
// fast, or a key held down); then it runs what they asked for.
func burst(t *testing.T, m Model, ks ...string) Model {
	t.Helper()
	var cmds []tea.Cmd
	for _, k := range ks {
		next, cmd := m.Update(keyMsg(k))
		m = next.(Model)
		cmds = append(cmds, cmd)
	}
	return drive(t, m, tea.Batch(cmds...))
}

// evidenceFiles lists the flow's evidence part files on disk.
func evidenceFiles(t *testing.T, m Model) string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(m.snap.Dir, "ctx", "evidence"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

// TestKeyBurstAppliesEveryKey: toggles, a rank move, a removal and an
// undo typed before the first change is applied all take effect, in
// order, on the parts the user saw under the cursor.
func TestKeyBurstAppliesEveryKey(t *testing.T) {
	m, _ := newTestModel(t, nil)
	// 010_request 100_parse_go 110_render_go 200_guide_md: skip parse and
	// render, move render after guide (201), step back onto guide and
	// remove it, then undo the removal.
	m = burst(t, m, "j", "space", "j", "space", "J", "k", "x", "u")
	want := "100_parse_go.evidence.md.skip 200_guide_md.evidence.md 201_render_go.evidence.md.skip"
	if got := evidenceFiles(t, m); got != want {
		t.Errorf("on disk after the burst:\n got %s\nwant %s\n(status %q)", got, want, m.status)
	}
	if got := rowStates(m); got != "010_request:on 100_parse_go:off 200_guide_md:on 201_render_go:off" {
		t.Errorf("rows after the burst: %s", got)
	}
	if len(m.queue) != 0 || m.busy != 0 {
		t.Errorf("queue %d, busy %d after the burst", len(m.queue), m.busy)
	}
	// History holds every change: undo all four, oldest last.
	m = burst(t, m, "u", "u", "u", "u")
	if got := evidenceFiles(t, m); got != "100_parse_go.evidence.md 110_render_go.evidence.md 200_guide_md.evidence.md" {
		t.Errorf("after undoing the burst: %s (status %q)", got, m.status)
	}

	// Space held down on one row: an odd count leaves it off.
	m = burst(t, m, "g", "j", "space", "space", "space", "space", "space")
	if got := evidenceFiles(t, m); !strings.Contains(got, "100_parse_go.evidence.md.skip") {
		t.Errorf("five spaces on parse: %s", got)
	}

	// x then j: the removed row is gone at once, so j steps from the row
	// that took its place, and space acts on the row after that.
	m = burst(t, m, "g", "j", "x", "j", "space")
	if got := evidenceFiles(t, m); got != "110_render_go.evidence.md 200_guide_md.evidence.md.skip" {
		t.Errorf("x, j, space: %s", got)
	}
}

// TestKeyBurstShowsItsEffectAtOnce: while changes wait their turn the
// list shows them, so the next key acts on the rows as they will be.
func TestKeyBurstShowsItsEffectAtOnce(t *testing.T) {
	m, _ := newTestModel(t, nil)
	for _, k := range []string{"j", "space", "J", "p"} {
		next, _ := m.Update(keyMsg(k))
		m = next.(Model)
	}
	if got := rowStates(m); got != "010_request:on 110_render_go:on 111_parse_go:off+pin 200_guide_md:on" {
		t.Errorf("rows shown before any change is applied: %s", got)
	}
	if r, _ := m.selected(); r.ID != "111_parse_go" {
		t.Errorf("the cursor is on %s, not on the part it moved", r.ID)
	}
	if len(m.queue) != 3 {
		t.Errorf("queued: %d", len(m.queue))
	}
}

// TestKeyBurstFailureDropsWhatDependsOnIt: when a change fails, the
// changes typed after it, which assumed it, are not applied, history is
// as before it, and the status says so.
func TestKeyBurstFailureDropsWhatDependsOnIt(t *testing.T) {
	m, _ := newTestModel(t, nil)
	next, _ := m.Update(keyMsg("j"))
	m = next.(Model)
	// The part goes away behind the workbench's back before its toggle runs.
	if err := os.Remove(filepath.Join(m.snap.Dir, "ctx", "evidence", "100_parse_go.evidence.md")); err != nil {
		t.Fatal(err)
	}
	m = burst(t, m, "space", "j", "space")
	if !m.statusErr || !strings.Contains(m.status, "1 later change not applied") {
		t.Errorf("status: %q", m.status)
	}
	if got := evidenceFiles(t, m); got != "110_render_go.evidence.md 200_guide_md.evidence.md" {
		t.Errorf("on disk: %s", got)
	}
	if len(m.undo) != 0 || len(m.queue) != 0 {
		t.Errorf("undo %d, queue %d", len(m.undo), len(m.queue))
	}
}

// TestQuitWaitsForQueuedChanges: q typed right after changes quits once
// they are applied, not before.
func TestQuitWaitsForQueuedChanges(t *testing.T) {
	m, _ := newTestModel(t, nil)
	var cmds []tea.Cmd
	for _, k := range []string{"j", "space", "j", "space", "q"} {
		next, cmd := m.Update(keyMsg(k))
		m = next.(Model)
		cmds = append(cmds, cmd)
	}
	if !m.quitting {
		t.Fatal("q with changes queued does not wait for them")
	}
	// Run everything as the runtime would, watching for the quit.
	quit := false
	queue := cmds
	for steps := 0; len(queue) > 0 && steps < 100; steps++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.QuitMsg:
			quit = true
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case nil:
		default:
			if quit {
				t.Errorf("a %T after the quit", msg)
			}
			next, more := m.Update(msg)
			m = next.(Model)
			queue = append(queue, more)
		}
	}
	if !quit {
		t.Error("the workbench never quit")
	}
	if got := evidenceFiles(t, m); got != "100_parse_go.evidence.md.skip 110_render_go.evidence.md.skip 200_guide_md.evidence.md" {
		t.Errorf("on disk at quit: %s", got)
	}
}
