package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble"
)

// runWords runs a command line; undo is the command line that reverses
// it, nil when it cannot be undone.
func (m Model) runWords(words, undo []string) (tea.Model, tea.Cmd) {
	m.status, m.statusErr = strings.Join(words, " ")+" …", false
	cmd := m.execCmd(action{do: words, undo: undo}, execNew)
	return m, cmd
}

// waiting refuses a change while another is on its way: the rows on
// screen, and the ids keys act on, are those before it.
func (m *Model) waiting() bool {
	if m.busy > 0 {
		m.status, m.statusErr = "one moment: the last change is still being applied", false
		return true
	}
	return false
}

func (m Model) toggleSelected() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok || m.waiting() {
		return m, nil
	}
	// Show the new state at once; the engine's answer replaces the row.
	m.snap.Rows = append([]row(nil), m.snap.Rows...)
	m.snap.Rows[m.list.cursor].Active = !r.Active
	words := []string{"evidence", "toggle", r.ID}
	return m.runWords(words, words)
}

func (m Model) pinSelected() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok || m.waiting() {
		return m, nil
	}
	if r.Pinned {
		return m.runWords([]string{"evidence", "pin", r.ID, "off"}, []string{"evidence", "pin", r.ID})
	}
	return m.runWords([]string{"evidence", "pin", r.ID}, []string{"evidence", "pin", r.ID, "off"})
}

func (m Model) removeSelected() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok || m.waiting() {
		return m, nil
	}
	return m.runWords([]string{"evidence", "remove", r.ID}, []string{"evidence", "restore", r.Name})
}

// moveRank moves the selected part before the previous part or after the
// next one, taking the first free rank between them.
func (m Model) moveRank(dir int) (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok || m.waiting() {
		return m, nil
	}
	to, ok := m.freeRank(dir)
	if !ok {
		m.status, m.statusErr = "no free rank there: run `:evidence rebase` to make room", true
		return m, nil
	}
	kind := strings.TrimPrefix(r.ID, r.Rank+"_")
	newID := fmt.Sprintf("%03d_%s", to, kind)
	m.list.cursor += dir
	return m.runWords([]string{"evidence", "rank", r.ID, fmt.Sprint(to)}, []string{"evidence", "rank", newID, r.Rank})
}

// freeRank finds a free rank past the neighbour in direction dir.
func (m Model) freeRank(dir int) (int, bool) {
	rows := m.snap.Rows
	i := m.list.cursor + dir
	if i < 0 || i >= len(rows) {
		return 0, false
	}
	// A part stays in its role's ranks: seed 003 keeps 000-099 for system
	// and user parts and the rest for evidence.
	floor, ceil := 100, 999
	switch rows[m.list.cursor].Role {
	case "system":
		floor, ceil = 0, 9
	case "user":
		floor, ceil = 10, 99
	}
	used := map[int]bool{}
	for _, r := range rows {
		used[atoi(r.Rank)] = true
	}
	lo, hi := atoi(rows[i].Rank), -1
	if j := i + dir; j >= 0 && j < len(rows) {
		hi = atoi(rows[j].Rank)
	} else if dir > 0 {
		hi = 1000
	}
	if dir < 0 {
		for c := lo - 1; c > hi && c >= floor; c-- {
			if !used[c] {
				return c, true
			}
		}
		return 0, false
	}
	for c := lo + 1; c < hi && c <= ceil; c++ {
		if !used[c] {
			return c, true
		}
	}
	return 0, false
}

func (m Model) undoLast() (tea.Model, tea.Cmd) {
	if m.waiting() {
		return m, nil
	}
	if len(m.undo) == 0 {
		m.status, m.statusErr = "nothing to undo", false
		return m, nil
	}
	a := m.undo[len(m.undo)-1]
	m.undo = m.undo[:len(m.undo)-1]
	cmd := m.execCmd(action{do: a.undo, undo: a.do}, execUndo)
	return m, cmd
}

func (m Model) redoLast() (tea.Model, tea.Cmd) {
	if m.waiting() {
		return m, nil
	}
	if len(m.redo) == 0 {
		m.status, m.statusErr = "nothing to redo", false
		return m, nil
	}
	a := m.redo[len(m.redo)-1]
	m.redo = m.redo[:len(m.redo)-1]
	cmd := m.execCmd(a, execRedo)
	return m, cmd
}

func (m Model) cycleFormat() (tea.Model, tea.Cmd) {
	for i, f := range assemble.Formats {
		if f == m.format {
			m.format = assemble.Formats[(i+1)%len(assemble.Formats)]
			break
		}
	}
	m.status, m.statusErr = "format: "+string(m.format), false
	return m, m.loadCmd()
}
