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
	return m.runAction(action{do: words, undo: undo})
}

// runAction queues an action (see queue.go): its effect shows at once and
// the engine's answer replaces the rows.
func (m Model) runAction(a action) (tea.Model, tea.Cmd) {
	m.status, m.statusErr = strings.Join(a.do, " ")+" …", false
	cmd := m.execCmd(a, execNew)
	return m, cmd
}

func (m Model) toggleSelected() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	words := []string{"evidence", "toggle", r.ID}
	return m.runAction(action{do: words, undo: words, eff: effect{op: effActive, id: r.ID, on: !r.Active}})
}

func (m Model) pinSelected() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	on, off := []string{"evidence", "pin", r.ID}, []string{"evidence", "pin", r.ID, "off"}
	if r.Pinned {
		on, off = off, on
	}
	return m.runAction(action{do: on, undo: off, eff: effect{op: effPin, id: r.ID, on: !r.Pinned}})
}

func (m Model) removeSelected() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	return m.runAction(action{do: []string{"evidence", "remove", r.ID}, undo: []string{"evidence", "restore", r.Name},
		eff: effect{op: effRemove, id: r.ID}})
}

// moveRank moves the selected part before the previous part or after the
// next one, taking the first free rank between them.
func (m Model) moveRank(dir int) (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	to, ok := m.freeRank(dir)
	if !ok {
		m.status, m.statusErr = "no free rank there: run `:evidence rebase` to make room", true
		return m, nil
	}
	kind := strings.TrimPrefix(r.ID, r.Rank+"_")
	newID := fmt.Sprintf("%03d_%s", to, kind)
	// The cursor follows the part to its new place.
	m.list.cursor += dir
	return m.runAction(action{do: []string{"evidence", "rank", r.ID, fmt.Sprint(to)}, undo: []string{"evidence", "rank", newID, r.Rank},
		eff: effect{op: effRank, id: r.ID, to: newID}})
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

// undoLast undoes the last change, queued ones included: history is
// recorded when a change is queued.
func (m Model) undoLast() (tea.Model, tea.Cmd) {
	if len(m.undo) == 0 {
		m.status, m.statusErr = "nothing to undo", false
		return m, nil
	}
	a := m.undo[len(m.undo)-1]
	if a.undo == nil {
		m.status, m.statusErr = "one moment: the last change is still being applied (u again once it is)", false
		return m, nil
	}
	m.undo = m.undo[:len(m.undo)-1]
	m.status, m.statusErr = "undo: "+strings.Join(a.undo, " ")+" …", false
	cmd := m.execCmd(action{do: a.undo, undo: a.do, eff: a.eff.inverse()}, execUndo)
	return m, cmd
}

func (m Model) redoLast() (tea.Model, tea.Cmd) {
	if len(m.redo) == 0 {
		m.status, m.statusErr = "nothing to redo", false
		return m, nil
	}
	a := m.redo[len(m.redo)-1]
	m.redo = m.redo[:len(m.redo)-1]
	m.status, m.statusErr = "redo: "+strings.Join(a.do, " ")+" …", false
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
