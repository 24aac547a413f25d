package evidence

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/dossierhq/dossier/assemble"
)

// A part's place in the prompt is the rank in its file name (seed 003's
// <rank>_<kind>.<role>.md), so every command here renames part files and
// nothing else: `rank` moves a part to a free rank, `move` one place up or
// down, `swap` exchanges two parts' ranks, `rebase` spreads each band's
// parts evenly. A part's id changes with its rank; the flow.json state
// kept by id (pin, fit, focus, where search found it) follows it.

func (e *Engine) rankCmd(c *call) error {
	if err := c.needArgs(2, 2, "ID N"); err != nil {
		return err
	}
	f, err := e.Flow()
	if err != nil {
		return err
	}
	p, err := f.Find(c.args[0])
	if err != nil {
		return err
	}
	r, err := ParseRank(c.args[1])
	if err != nil {
		return usagef("%v", err)
	}
	if err := f.Writable(); err != nil {
		return err
	}
	old := p.ID()
	if err := f.SetRank(p, r); err != nil {
		return err
	}
	fmt.Fprintf(c.w, "✓ %s -> %s\n", old, p.ID())
	return e.finish(c.w)
}

// SetRank renames a part to rank r, which must be free, and carries its
// pin and fit state along.
func (f *Flow) SetRank(p *Part, r int) error {
	if q := f.byRank(r); q != nil && q != p {
		return fmt.Errorf("rank %s is taken by %s: choose a free rank (free nearby: %s)", FormatRank(r), q.ID(), f.freeNear(r))
	}
	old := p.ID()
	if err := f.renamePart(p, r); err != nil {
		return err
	}
	return f.renameState(old, p.ID())
}

// renamePart renames a part's file to rank r, taken or not, leaving the
// state kept by its id where it is.
func (f *Flow) renamePart(p *Part, r int) error {
	n := p.Name
	n.Rank = FormatRank(r)
	dst := filepath.Join(filepath.Dir(p.Path), n.String())
	if dst == p.Path {
		return nil
	}
	if err := rename(p.Path, dst); err != nil {
		return err
	}
	p.Name, p.Path, p.Rank = n, dst, n.Rank
	p.File = path.Join(path.Dir(p.File), n.String())
	f.sortParts()
	return nil
}

// renameState moves flow.json entries keyed by a part id.
func (f *Flow) renameState(old, id string) error {
	return f.renameStates(map[string]string{old: id})
}

// renameStates moves flow.json entries from old ids to new ones all at
// once, so two parts can trade ids (a swap of parts of one kind).
func (f *Flow) renameStates(ids map[string]string) error {
	changed := false
	for _, list := range []*[]string{&f.Meta.Pinned, &f.Meta.FitSkipped} {
		for i, id := range *list {
			if to, ok := ids[id]; ok && to != id {
				(*list)[i], changed = to, true
			}
		}
	}
	changed = renameKeys(f.Meta.Detail, ids) || changed
	changed = renameKeys(f.Meta.Found, ids) || changed
	if f.Meta.Focus != nil {
		changed = renameKeys(f.Meta.Focus.Saved, ids) || changed
	}
	if !changed {
		return nil
	}
	return f.SaveMeta()
}

// renameKeys moves m's entries from old keys to new ones; every old key
// is taken out before any new one is set, so keys can trade places.
func renameKeys[V any](m map[string]V, ids map[string]string) bool {
	moved := map[string]V{}
	for old, id := range ids {
		if v, ok := m[old]; ok && old != id {
			moved[id] = v
			delete(m, old)
		}
	}
	for id, v := range moved {
		m[id] = v
	}
	return len(moved) > 0
}

func (e *Engine) rebase(c *call) error {
	f, err := e.Flow()
	if err != nil {
		return err
	}
	if err := f.Writable(); err != nil {
		return err
	}
	moves := f.rebasePlan()
	if len(moves) == 0 {
		fmt.Fprintln(c.w, "ranks are already even: nothing to change")
		return nil
	}
	// Moves down run in ascending order and moves up in descending order,
	// so no rename ever meets a taken rank and a crash midway leaves a
	// valid flow in the same order.
	for _, m := range moves {
		old := m.p.ID()
		if err := f.SetRank(m.p, m.to); err != nil {
			return err
		}
		fmt.Fprintf(c.w, "✓ %s -> %s\n", old, m.p.ID())
	}
	return e.finish(c.w)
}

// rebaseBand is the band rebase spreads a rank within: seed 003's bands,
// with system parts (000-009) and user parts (010-099) kept apart so the
// request never moves before the policies.
func rebaseBand(r int) Band {
	switch {
	case r <= systemParts.Hi:
		return systemParts
	case r <= userParts.Hi:
		return userParts
	}
	return BandOf(r)
}

type move struct {
	p  *Part
	to int
}

// rebasePlan spreads each band's parts evenly from the band's start.
func (f *Flow) rebasePlan() []move {
	byBand := map[int][]*Part{}
	var order []int
	for _, p := range f.Parts {
		r, _ := strconv.Atoi(p.Rank)
		b := rebaseBand(r).Low
		if _, ok := byBand[b]; !ok {
			order = append(order, b)
		}
		byBand[b] = append(byBand[b], p)
	}
	var down, up []move
	for _, lo := range order {
		ps := byBand[lo]
		slices.SortStableFunc(ps, func(a, b *Part) int { return strings.Compare(a.Rank, b.Rank) })
		width := rebaseBand(lo).Hi - lo + 1
		if len(ps) > width {
			continue // more parts than ranks (duplicates): leave the band alone
		}
		step := 10
		if len(ps)*10 > width {
			step = max(1, width/len(ps))
		}
		for i, p := range ps {
			to := lo + i*step
			r, _ := strconv.Atoi(p.Rank)
			switch {
			case to < r:
				down = append(down, move{p, to})
			case to > r:
				up = append(up, move{p, to})
			}
		}
	}
	slices.SortFunc(down, func(a, b move) int { return a.to - b.to })
	slices.SortFunc(up, func(a, b move) int { return b.to - a.to })
	return append(down, up...)
}

func (e *Engine) moveCmd(c *call) error {
	if err := c.needArgs(2, 2, "ID up|down"); err != nil {
		return err
	}
	dir := map[string]int{"up": -1, "down": 1}[c.args[1]]
	if dir == 0 {
		return usagef("move %s where? give up or down, not %q", c.args[0], c.args[1])
	}
	f, err := e.Flow()
	if err != nil {
		return err
	}
	p, err := f.Find(c.args[0])
	if err != nil {
		return err
	}
	slots := make([]Slot, len(f.Parts))
	for i, q := range f.Parts {
		slots[i] = Slot{ID: q.ID(), Rank: atoiRank(q.Rank), Role: q.Name.Role}
	}
	mv, err := PlanMove(slots, slices.Index(f.Parts, p), dir)
	if err != nil {
		return err
	}
	if err := f.Writable(); err != nil {
		return err
	}
	if mv.With == "" {
		err = f.SetRank(p, mv.To)
	} else {
		err = f.SwapRanks(p, f.Parts[slices.Index(f.Parts, p)+dir])
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(c.w, "✓ %s -> %s\n", mv.ID, mv.NewID())
	if mv.With != "" {
		fmt.Fprintf(c.w, "✓ %s -> %s\n", mv.With, mv.NewWith())
	}
	fmt.Fprintf(c.w, "  Undo: dossier %s\n", strings.Join(mv.Undo(), " "))
	return e.finish(c.w)
}

func (e *Engine) swapCmd(c *call) error {
	if err := c.needArgs(2, 2, "ID OTHER"); err != nil {
		return err
	}
	f, err := e.Flow()
	if err != nil {
		return err
	}
	a, err := f.Find(c.args[0])
	if err != nil {
		return err
	}
	b, err := f.Find(c.args[1])
	if err != nil {
		return err
	}
	if err := f.Writable(); err != nil {
		return err
	}
	oldA, oldB := a.ID(), b.ID()
	if err := f.SwapRanks(a, b); err != nil {
		return err
	}
	fmt.Fprintf(c.w, "✓ %s -> %s\n✓ %s -> %s\n", oldA, a.ID(), oldB, b.ID())
	return e.finish(c.w)
}

// SwapRanks gives a the rank of b and b the rank of a, two parts of one
// role, in one step: on an error the flow is put back as it was. Swapping
// the new ids again undoes it exactly.
func (f *Flow) SwapRanks(a, b *Part) error {
	switch {
	case a == b:
		return fmt.Errorf("swap %s with itself: name two parts", a.ID())
	case a.Name.Role != b.Name.Role:
		return fmt.Errorf("%s (%s) and %s (%s): only parts of one role swap ranks (%s)",
			a.ID(), a.Name.Role, b.ID(), b.Name.Role, rolesNote)
	case a.Rank == b.Rank:
		return fmt.Errorf("%s and %s share rank %s: swapping changes nothing; give one a free rank with `evidence rank` or run `evidence rebase`",
			a.ID(), b.ID(), a.Rank)
	}
	ra, rb := atoiRank(a.Rank), atoiRank(b.Rank)
	oldA, oldB := a.ID(), b.ID()
	// a goes to b's rank, then b to a's: in between both parts are there,
	// sharing a rank, so even a crash midway leaves every part in the
	// flow. Parts of one kind would take each other's file name: a parks
	// on a free rank of its role first.
	steps := []move{{a, rb}, {b, ra}}
	if a.Name.Kind == b.Name.Kind {
		park, ok := f.freeIn(roleRanks(a.Name.Role))
		if !ok {
			return fmt.Errorf("swap %s and %s: every %s rank is taken, none is free to pass through", oldA, oldB, a.Name.Role)
		}
		steps = []move{{a, park}, {b, ra}, {a, rb}}
	}
	var done []move // each step's part and the rank it came from
	for _, s := range steps {
		from := atoiRank(s.p.Rank)
		if err := f.renamePart(s.p, s.to); err != nil {
			for _, d := range slices.Backward(done) {
				if err2 := f.renamePart(d.p, d.to); err2 != nil {
					return fmt.Errorf("%w; putting %s back failed too: %v", err, d.p.ID(), err2)
				}
			}
			return err
		}
		done = append(done, move{s.p, from})
	}
	return f.renameStates(map[string]string{oldA: a.ID(), oldB: b.ID()})
}

// rolesNote says why roles keep their own ranks.
const rolesNote = "seed 003: system parts 000-009, user parts 010-099, evidence 100-999"

// roleRanks are the ranks a role's parts move within (rolesNote).
func roleRanks(r assemble.Role) Band {
	switch r {
	case assemble.System:
		return systemParts
	case assemble.User:
		return userParts
	}
	return Band{"evidence", 100, 999, "evidence"}
}

// freeIn is the first rank of b no part holds.
func (f *Flow) freeIn(b Band) (int, bool) {
	for r := b.Low; r <= b.Hi; r++ {
		if f.byRank(r) == nil {
			return r, true
		}
	}
	return 0, false
}

// Slot is a part as PlanMove sees it.
type Slot struct {
	ID   string
	Rank int
	Role assemble.Role
}

// Move is one place up or down for a part: to the free rank To, or, when
// With is set, to the rank of its neighbour With, which takes From.
type Move struct {
	ID, With string
	From, To int
}

// NewID is the part's id after the move.
func (m Move) NewID() string { return reRank(m.ID, m.To) }

// NewWith is the neighbour's id after a swap.
func (m Move) NewWith() string { return reRank(m.With, m.From) }

// Words is the engine command that makes the move.
func (m Move) Words() []string {
	if m.With == "" {
		return []string{"evidence", "rank", m.ID, FormatRank(m.To)}
	}
	return []string{"evidence", "swap", m.ID, m.With}
}

// Undo is the engine command that puts the ids back as they were.
func (m Move) Undo() []string {
	if m.With == "" {
		return []string{"evidence", "rank", m.NewID(), FormatRank(m.From)}
	}
	return []string{"evidence", "swap", m.NewID(), m.NewWith()}
}

// reRank is id ("110_parse_go") with another rank.
func reRank(id string, r int) string {
	_, kind, _ := strings.Cut(id, "_")
	return FormatRank(r) + "_" + kind
}

// PlanMove plans moving parts[i] one place up (dir -1) or down (dir 1)
// past its neighbour of the same role, parts being in list order. It
// takes the free rank nearest the neighbour, short of the part beyond it;
// with none free (the neighbour is at the band's edge or next to the part
// beyond it, as `rebase` leaves the head of a band) the part and its
// neighbour swap ranks, so a move never needs a rebase first. The
// workbench plans a key's move with it, so the change it shows at once and
// its undo are what the engine does.
func PlanMove(parts []Slot, i, dir int) (Move, error) {
	p := parts[i]
	j := i + dir
	if j < 0 || j >= len(parts) || parts[j].Role != p.Role {
		where := "first"
		if dir > 0 {
			where = "last"
		}
		return Move{}, fmt.Errorf("%s is the %s %s part: there is none to move past (%s)", p.ID, where, p.Role, rolesNote)
	}
	n := parts[j]
	band := roleRanks(p.Role)
	lo, hi := band.Low, n.Rank-1
	if dir > 0 {
		lo, hi = n.Rank+1, band.Hi
	}
	if k := j + dir; k >= 0 && k < len(parts) {
		if dir < 0 {
			lo = max(lo, parts[k].Rank+1)
		} else {
			hi = min(hi, parts[k].Rank-1)
		}
	}
	used := map[int]bool{}
	for _, q := range parts {
		used[q.Rank] = true
	}
	for r := n.Rank + dir; r >= lo && r <= hi; r += dir {
		if !used[r] {
			return Move{ID: p.ID, From: p.Rank, To: r}, nil
		}
	}
	if n.Rank == p.Rank {
		return Move{}, fmt.Errorf("%s and %s share rank %s: run `evidence rebase` to spread them, then move again", p.ID, n.ID, FormatRank(p.Rank))
	}
	return Move{ID: p.ID, With: n.ID, From: p.Rank, To: n.Rank}, nil
}
