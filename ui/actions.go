package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence"
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

// moveRank moves the selected part one place up or down among its role's
// parts, as `evidence move` does: evidence.PlanMove picks a free rank past
// the neighbour, or a swap with it when none is free. The plan's own
// command is what runs (not `move`), so the effect shown at once and the
// undo are exactly what the engine does.
func (m Model) moveRank(dir int) (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	slots := make([]evidence.Slot, len(m.snap.Rows))
	for i, r := range m.snap.Rows {
		slots[i] = evidence.Slot{ID: r.ID, Rank: atoi(r.Rank), Role: assemble.Role(r.Role)}
	}
	mv, err := evidence.PlanMove(slots, m.list.cursor, dir)
	if err != nil {
		m.status, m.statusErr = err.Error(), true
		return m, nil
	}
	return m.runAction(action{do: mv.Words(), undo: mv.Undo(),
		eff: effect{op: effRank, id: r.ID, to: mv.NewID(), with: mv.With}})
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
