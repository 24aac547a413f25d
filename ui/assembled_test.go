package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpaceTogglesWithAssembledShown: after v, the list is still on
// screen and space toggles its selected part (the prompt follows).
func TestSpaceTogglesWithAssembledShown(t *testing.T) {
	m, _ := newTestModel(t, nil)
	m = keys(t, m, "j", "v")
	if m.focus != focusAssembled {
		t.Fatalf("focus after v: %v", m.focus)
	}
	before := m.snap.Text
	m = keys(t, m, "space")
	if !strings.Contains(rowStates(m), "100_parse_go:off") {
		t.Errorf("space after v: %s (status %q)", rowStates(m), m.status)
	}
	if _, err := os.Stat(filepath.Join(m.snap.Dir, "ctx", "evidence", "100_parse_go.evidence.md.skip")); err != nil {
		t.Errorf("not toggled on disk: %v", err)
	}
	if m.snap.Text == before || strings.Contains(m.snap.Text, "func Parse(") {
		t.Error("the assembled prompt still holds the skipped part")
	}
	if !m.showAssembled || m.focus != focusAssembled {
		t.Error("toggling closed the assembled prompt")
	}
	// j still scrolls the prompt, not the list.
	m = keys(t, m, "j")
	if r, _ := m.selected(); r.ID != "100_parse_go" {
		t.Errorf("j moved the list to %s", r.ID)
	}
}
