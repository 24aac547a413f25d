package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// runes is a key message as Bubble Tea makes it from printable
// characters that arrive in one read.
func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// TestKeysReadTogetherAreEachActedOn: "jj", "JK" or ":evid" arriving in
// one read are one message of several runes; each rune is a key, and once
// one opens a text input the rest is typed into it.
func TestKeysReadTogetherAreEachActedOn(t *testing.T) {
	m, _ := newTestModel(t, nil)
	m = send(t, m, runes("jj"))
	if r, _ := m.selected(); r.ID != "110_render_go" {
		t.Fatalf(`"jj" in one message: the cursor is on %s`, r.ID)
	}
	space := tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	m = send(t, m, space)
	m = send(t, m, runes("kpjJ")) // pin parse, move render after guide
	if got := evidenceFiles(t, m); got != "100_parse_go.evidence.md 200_guide_md.evidence.md 201_render_go.evidence.md.skip" {
		t.Errorf("on disk: %s (status %q)", got, m.status)
	}
	if !strings.Contains(rowStates(m), "100_parse_go:on+pin") {
		t.Errorf("rows: %s", rowStates(m))
	}
	m = send(t, m, runes(":evid"))
	if m.focus != focusCommand || m.cmd.input.Value() != "evid" {
		t.Errorf(`":evid" in one message: focus %v, command line %q`, m.focus, m.cmd.input.Value())
	}
	// Pasted text is not keys.
	m = keys(t, m, "esc")
	paste := runes("xxxx")
	paste.Paste = true
	m = send(t, m, paste)
	if got := evidenceFiles(t, m); !strings.Contains(got, "200_guide_md") {
		t.Errorf("a paste removed parts: %s", got)
	}
}
