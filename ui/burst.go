package ui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// Bubble Tea reports printable characters that arrive in one read as one
// key message: "jjjj" typed fast, or j held down, is a single KeyRunes of
// four runes, which matches no binding. Outside a text input each rune is
// a key of its own, so they are taken one at a time; once a key opens a
// text input (":", "/"), the rest is typed into it.

// handleKeys handles a key message, one rune at a time when it holds
// several keys.
func (m Model) handleKeys(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if msg.Type != tea.KeyRunes || len(msg.Runes) < 2 || msg.Paste || m.typing() {
		return m.handleKey(msg)
	}
	var cmds []tea.Cmd
	for i, r := range msg.Runes {
		if m.typing() {
			rest := msg
			rest.Runes = msg.Runes[i:]
			next, cmd := m.handleKey(rest)
			return next, tea.Batch(append(cmds, cmd)...)
		}
		one := msg
		one.Runes = []rune{r}
		next, cmd := m.handleKey(one)
		m = next.(Model)
		cmds = append(cmds, cmd)
	}
	return m, tea.Batch(cmds...)
}

// typing says whether keys go to a text input.
func (m Model) typing() bool { return m.focus == focusCommand || m.focus == focusSearch }
