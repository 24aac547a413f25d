package ui

import (
	"fmt"
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/evidence"
)

// Keys are never refused for being early. Each engine command a key (or
// the command line) asks for joins a queue and runs once the one before
// it has finished, so keys typed in a burst, or a key held down, are each
// acted on, in order. What a queued command will do to the list is shown
// at once (its effect), so the next key acts on the rows as they will be:
// a toggle of row 3 then a rank move apply to the parts the user saw.

// queued is one engine command waiting for its turn (the first is under
// way).
type queued struct {
	seq  int
	act  action
	kind execKind
	// undo and redo are the history before it: a command that fails
	// takes history back to them.
	undo, redo []action
}

// effectOp is what an effect does to a row.
type effectOp int

const (
	effNone   effectOp = iota
	effActive          // on or off (toggle)
	effPin             // pinned or not
	effRank            // a new rank, so a new id
	effRemove          // gone from the list
)

// effect is what an action does to the list, drawn before the engine has
// done it. It says how a row ends up, never "flip": applied to a snapshot
// that already holds it, it changes nothing.
type effect struct {
	op effectOp
	id string
	on bool   // effActive, effPin: the state after
	to string // effRank: the id after
	// with is, for effRank, the neighbour a swap gives the part's rank to
	// ("" when the part took a free rank).
	with string
}

// inverse is the effect of the action's undo. A removal's undo brings back
// a row the list cannot draw before the engine reads it: no effect.
func (e effect) inverse() effect {
	switch e.op {
	case effActive, effPin:
		return effect{op: e.op, id: e.id, on: !e.on}
	case effRank:
		inv := effect{op: effRank, id: e.to, to: e.id}
		if e.with != "" {
			// The neighbour now has the part's old rank.
			inv.with = rankOf(e.id) + strings.TrimPrefix(e.with, rankOf(e.with))
		}
		return inv
	}
	return effect{}
}

// apply returns rows as they are after the effect; rows is not changed
// (snapshots are shared and never written).
func (e effect) apply(rows []row) []row {
	i := slices.IndexFunc(rows, func(r row) bool { return r.ID == e.id })
	if e.op == effNone || i < 0 {
		return rows
	}
	rows = slices.Clone(rows)
	r := &rows[i]
	switch e.op {
	case effActive:
		r.Active = e.on
		// The file name, which `evidence restore` takes, says skipped.
		r.Name = strings.TrimSuffix(r.Name, ".skip")
		if !e.on {
			r.Name += ".skip"
		}
	case effPin:
		r.Pinned = e.on
		r.States = slices.DeleteFunc(slices.Clone(r.States), func(s string) bool { return s == "pinned" })
		if e.on {
			r.States = append(r.States, "pinned")
		}
	case effRank:
		if j := slices.IndexFunc(rows, func(r row) bool { return r.ID == e.with }); e.with != "" && j >= 0 {
			rerank(&rows[j], r.Rank)
		}
		rerank(r, rankOf(e.to))
		slices.SortStableFunc(rows, func(a, b row) int { return strings.Compare(a.Rank, b.Rank) })
	case effRemove:
		rows = slices.Delete(rows, i, i+1)
	}
	return rows
}

// rankOf is an id's rank: "110" of "110_parse_go".
func rankOf(id string) string {
	rank, _, _ := strings.Cut(id, "_")
	return rank
}

// rerank gives a row another rank, so another id and file name.
func rerank(r *row, rank string) {
	id := rank + strings.TrimPrefix(r.ID, r.Rank)
	r.Name = id + strings.TrimPrefix(r.Name, r.ID)
	r.ID, r.Rank = id, rank
	r.Band = evidence.BandOf(atoi(rank)).Name
}

// withPending is rows with the effects of the queued commands applied.
func (m Model) withPending(rows []row) []row {
	for _, q := range m.queue {
		rows = q.act.eff.apply(rows)
	}
	return rows
}

// execCmd queues an engine command, shows its effect and the history it
// will leave, and starts it when nothing else is under way.
func (m *Model) execCmd(act action, kind execKind) tea.Cmd {
	m.qseq++
	act.seq = m.qseq
	q := queued{seq: act.seq, act: act, kind: kind, undo: slices.Clone(m.undo), redo: slices.Clone(m.redo)}
	switch {
	case kind == execUndo:
		m.redo = append(m.redo, action{do: act.undo, undo: act.do, eff: act.eff.inverse(), seq: q.seq})
	case len(act.undo) > 0, act.learn != learnNone && kind == execNew:
		// A learning command's entry is kept in its place; learnUndo
		// fills it in or drops it.
		m.undo = append(m.undo, act)
		if kind == execNew {
			m.redo = nil // redo replays onto the state it was undone from
		}
	case kind == execNew && mutates(act.do):
		m.redo = nil
	}
	m.queue = append(m.queue, q)
	m.snap.Rows = act.eff.apply(m.snap.Rows)
	// The cursor follows a part that moves, by a key, an undo or a redo.
	if act.eff.op == effRank {
		if i := slices.IndexFunc(m.snap.Rows, func(r row) bool { return r.ID == act.eff.to }); i >= 0 {
			m.list.cursor = i
		}
	}
	m.clamp()
	if len(m.queue) == 1 {
		return m.startHead()
	}
	return nil
}

// learned is history saved when a command was queued, with the undo that
// commands queued before it have learned since (see learnUndo) filled in,
// and the entries of those that found nothing to undo dropped.
func (m Model) learned(saved []action) []action {
	out := make([]action, 0, len(saved))
	for _, a := range saved {
		if a.undo == nil && a.learn != learnNone {
			i := slices.IndexFunc(m.undo, func(b action) bool { return b.seq == a.seq })
			if i < 0 {
				continue
			}
			a = m.undo[i]
		}
		out = append(out, a)
	}
	return out
}

// learnUndo fills in the history entry of a command that learned its undo
// as it ran, or drops the entry when there is nothing to undo.
func (m *Model) learnUndo(msg execMsg) {
	if msg.act.learn == learnNone || msg.act.undo != nil {
		return
	}
	i := slices.IndexFunc(m.undo, func(a action) bool { return a.seq == msg.seq })
	switch {
	case i < 0:
	case msg.learned == nil:
		m.undo = slices.Delete(m.undo, i, i+1)
	default:
		m.undo = slices.Clone(m.undo)
		m.undo[i].undo = msg.learned
	}
}

// startHead runs the first queued command. Engine writes are not tied to
// the program's context: a command that started finishes, and Run waits
// for it (runner.close) before it returns, so quitting never cuts a
// change short; only a wait on the outside (an export's FIFO) ends with
// the workbench.
func (m *Model) startHead() tea.Cmd {
	m.busy++
	q, r, format := m.queue[0], m.run, m.format
	return func() tea.Msg {
		var learned []string
		var out string
		var snap snapshot
		var err error
		switch a := q.act; {
		case a.learn == learnText && a.undo == nil:
			learned, out, snap, err = r.setText(a.which, a.do, format)
			err = dropCopy(a.from, err)
		case a.learn == learnAdd && a.undo == nil:
			learned, out, snap, err = r.execAdd(a.do, format)
		default:
			out, snap, err = r.exec(r.quit, a.do, format)
		}
		return execMsg{act: q.act, out: out, err: err, snap: snap, kind: q.kind, seq: q.seq, learned: learned}
	}
}

// finish takes the answered command off the queue and starts the next.
// A failed command whose effect was shown takes the later ones with it
// (they were typed on rows that are not so) and history back to before
// it; one with no effect (an add, a command line) only loses its own
// place in history. It returns the next command and how many were
// dropped.
func (m *Model) finish(msg execMsg) (tea.Cmd, int) {
	if len(m.queue) == 0 || m.queue[0].seq != msg.seq {
		return nil, 0
	}
	head := m.queue[0]
	m.queue = m.queue[1:]
	dropped := 0
	if msg.err != nil {
		if head.act.eff.op != effNone || head.kind != execNew {
			// The commands typed on rows as the failed one would have
			// left them go too; the others (a command line, an add)
			// stand on their own and keep their place and history.
			kept := map[int]bool{}
			var rest []queued
			for _, q := range m.queue {
				if q.act.eff.op == effNone && q.kind == execNew {
					kept[q.seq] = true
					rest = append(rest, q)
				}
			}
			dropped = len(m.queue) - len(rest)
			m.queue = rest
			later := func(h []action) []action {
				return slices.DeleteFunc(slices.Clone(h), func(a action) bool { return a.seq <= head.seq || !kept[a.seq] })
			}
			undo, redo := m.learned(head.undo), slices.Clone(head.redo)
			if lu := later(m.undo); len(lu) > 0 {
				undo, redo = append(undo, lu...), later(m.redo) // a later new change cleared redo
			}
			m.undo, m.redo = undo, redo
		} else {
			m.undo = slices.DeleteFunc(m.undo, func(a action) bool { return a.seq == head.seq })
		}
	}
	if len(m.queue) == 0 {
		m.queue = nil
		return nil, dropped
	}
	return m.startHead(), dropped
}

// quit ends the workbench once the queued changes are applied: q typed
// right after a change does not lose it. Asked again, it ends at once
// (the change under way still finishes, see runner.close).
func (m Model) quit() (tea.Model, tea.Cmd) {
	if len(m.queue) == 0 || m.quitting {
		return m, tea.Quit
	}
	m.quitting = true
	m.status, m.statusErr = fmt.Sprintf("quitting once %d change(s) are applied (q again: quit now)", len(m.queue)), false
	return m, nil
}
