package evidence

import (
	"fmt"
	"strings"

	"github.com/dossierhq/dossier/assemble"
)

func init() {
	register(&command{group: "evidence", name: "focus", args: `"QUERY" | off`,
		summary: "Smart toggle (seed 003): keep evidence relevant to QUERY active and skip the rest;\n" +
			"system, user and pinned parts stay. `focus off` restores every part's earlier state.",
		run: (*Engine).focus})
}

func (e *Engine) focus(c *call) error {
	if len(c.args) == 0 {
		return usagef(`focus needs a query ("error handling") or off`)
	}
	f, err := e.Flow()
	if err != nil {
		return err
	}
	if len(c.args) == 1 && c.args[0] == "off" {
		return e.focusOff(c, f)
	}
	query := strings.Join(c.args, " ")
	rs, _, note := e.relevance(c.ctx, f, query)
	keep := map[*Part]bool{}
	for _, r := range rs {
		if r.matches() {
			keep[r.p] = true
		}
	}
	if len(keep) == 0 {
		return fmt.Errorf("no evidence matches %q, so focus changed nothing: `dossier ask \"what is missing for %s\"` finds candidates", query, query)
	}
	if err := f.Writable(); err != nil {
		return err
	}
	if f.Meta.Focus == nil {
		f.Meta.Focus = &FocusState{Saved: map[string]string{}}
	}
	// Every part's state before its first focus is saved before any
	// rename, so a crash midway leaves a flow `focus off` can restore, and
	// parts added between two focuses come back as they were too.
	for _, p := range f.Parts {
		if _, ok := f.Meta.Focus.Saved[p.ID()]; !ok {
			f.Meta.Focus.Saved[p.ID()] = string(p.Status)
		}
	}
	f.Meta.Focus.Query = query
	if err := f.SaveMeta(); err != nil {
		return err
	}
	var on, off []string
	for _, p := range f.Parts {
		if p.Role != assemble.Evidence || p.Pinned || p.Broken != "" {
			continue
		}
		to := assemble.Skipped
		if keep[p] {
			to = assemble.Active
		}
		changed, err := f.SetStatus(p, to)
		if err != nil {
			return err
		}
		if changed && to == assemble.Active {
			on = append(on, p.ID())
		} else if changed {
			off = append(off, p.ID())
		}
	}
	fmt.Fprintf(c.w, "✓ Focus %q: %d relevant evidence part(s) active\n", query, len(keep))
	for _, r := range rs {
		if keep[r.p] {
			fmt.Fprintf(c.w, "  keep %-28s text %.2f  search %.2f\n", r.p.ID(), r.lex, r.hit)
		}
	}
	if len(off) > 0 {
		fmt.Fprintf(c.w, "  skipped: %s\n", strings.Join(off, ", "))
	}
	if len(on) > 0 {
		fmt.Fprintf(c.w, "  re-enabled: %s\n", strings.Join(on, ", "))
	}
	if note != "" {
		fmt.Fprintln(c.w, "  note: "+note)
	}
	return e.finish(c.w)
}

// focusOff puts every part that existed before the first focus back in
// the state it had then; parts added since keep their state.
func (e *Engine) focusOff(c *call, f *Flow) error {
	if f.Meta.Focus == nil {
		fmt.Fprintln(c.w, "no focus is on: nothing to restore")
		return nil
	}
	if err := f.Writable(); err != nil {
		return err
	}
	n := 0
	for _, p := range f.Parts {
		s, ok := f.Meta.Focus.Saved[p.ID()]
		if !ok {
			continue
		}
		changed, err := f.SetStatus(p, assemble.Status(s))
		if err != nil {
			return err
		}
		if changed {
			n++
		}
	}
	f.Meta.Focus = nil
	if err := f.SaveMeta(); err != nil {
		return err
	}
	fmt.Fprintf(c.w, "✓ Focus off: %d part(s) restored to their earlier state\n", n)
	return e.finish(c.w)
}
