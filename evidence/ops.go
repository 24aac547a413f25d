package evidence

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/assemble"
)

func init() {
	register(&command{group: "evidence", name: "status", args: "", summary: "List the parts of the flow: rank, role, state, tokens, source; stale parts are marked.",
		flags: func(fs *pflag.FlagSet, o *opts) { fs.BoolVar(&o.json, "json", false, "print JSON") },
		run:   (*Engine).status})
	register(&command{group: "evidence", name: "plan", args: "", summary: "Assemble build/ and print ctxplan.json (seed 003).", run: (*Engine).plan})
	register(&command{group: "evidence", name: "budget", args: "[set N]", summary: "Show tokens used against the budget, per role; `budget set 32k` changes the limit.", run: (*Engine).budget})
	register(&command{group: "evidence", name: "toggle", args: "ID | on|off RANGE|ID", summary: "Flip a part between active and skipped (.skip), or set a range: `toggle off 300-399`.", run: (*Engine).toggle})
	register(&command{group: "evidence", name: "rank", args: "ID N", summary: "Move a part to rank N (a free rank).", run: (*Engine).rankCmd})
	register(&command{group: "evidence", name: "move", args: "ID up|down",
		summary: "Move a part one place up or down among its role's parts (the workbench's K and J).\n" +
			"It takes the free rank nearest the neighbour it passes; when no rank is free between the\n" +
			"neighbours it swaps ranks with that neighbour (see swap), so no `rebase` is needed first.\n" +
			"It prints the command that undoes it.",
		run: (*Engine).moveCmd})
	register(&command{group: "evidence", name: "swap", args: "ID OTHER",
		summary: "Exchange the ranks of two parts of one role in one step.\n" +
			"`swap 110_a 100_b` gives 100_a and 110_b, pin, fit and focus state going with each part;\n" +
			"`swap 100_a 110_b` puts them back. Parts of one kind trade places through a free rank.",
		run: (*Engine).swapCmd})
	register(&command{group: "evidence", name: "rebase", args: "", summary: "Renumber parts within each rank band to 100, 110, 120 ... keeping their order.", run: (*Engine).rebase})
	register(&command{group: "evidence", name: "remove", args: "ID|RANGE", summary: "Remove parts (moved to build/removed/, not deleted).", run: (*Engine).remove})
	register(&command{group: "evidence", name: "restore", args: "FILE...", summary: "Bring back parts taken out with remove (file names in build/removed/).", run: (*Engine).restore})
	register(&command{group: "evidence", name: "pin", args: "ID [off]", summary: "Pin a part so that focus and fit never turn it off or shrink it.", run: (*Engine).pin})
}

// printTotals is seed 003's feedback tail: total context and budget.
func (e *Engine) printTotals(w io.Writer, res assemble.Result) {
	budget := e.Budget()
	fmt.Fprintf(w, "  Total context: %d bytes (%s)\n", len(res.Text), tokenWord(res.Tokens, res))
	if budget > 0 {
		fmt.Fprintf(w, "  Budget: %d%% of %d token limit\n", res.Tokens*100/budget, budget)
	}
	if usd, model, p, ok := e.InputCost(res.Tokens); ok {
		fmt.Fprintf(w, "  Cost to send: %s of input to %s ($%.2f per million input tokens; the answer's tokens add to it)\n", CostWord(usd), model, p.Input)
	}
}

// tokenWord renders a count with its kind: "380 tokens, o200k_base" or
// "~380 tokens, estimate".
func tokenWord(n int, res assemble.Result) string {
	if !res.Exact {
		return fmt.Sprintf("~%d tokens, estimate", n)
	}
	return fmt.Sprintf("%d tokens, %s", n, res.Encoding)
}

// partTokens finds p's tokens in a result over the flow's snapshot.
func (f *Flow) partTokens(res assemble.Result, p *Part) int {
	i := 0
	for _, q := range f.Parts {
		if !q.InSnapshot() {
			continue
		}
		if q == p {
			if i < len(res.PartTokens) && p.Refused == "" {
				return res.PartTokens[i]
			}
			return 0
		}
		i++
	}
	return 0
}

// finish refreshes build/ after a change and prints seed 003's totals.
func (e *Engine) finish(w io.Writer) error {
	// A flow.json recovered from is written again with the first change,
	// so what was recovered lasts.
	if f := e.flow; f != nil && f.MetaProblem != "" {
		if err := f.SaveMeta(); err != nil {
			return err
		}
	}
	res, err := e.rebuild()
	if err != nil {
		return err
	}
	e.printTotals(w, res)
	return nil
}

// rebuild refreshes build/ after a change and returns the assembly in the
// flow's format, for feedback.
func (e *Engine) rebuild() (assemble.Result, error) {
	if _, err := e.Build(); err != nil {
		return assemble.Result{}, err
	}
	res, _, err := e.Assemble(e.Format())
	return res, err
}

func (e *Engine) status(c *call) error {
	f, err := e.Flow()
	if err != nil {
		return err
	}
	// status only reads: build/ is left alone, so it works on a read-only flow.
	res, _, err := e.Assemble(e.Format())
	if err != nil {
		return err
	}
	stale := e.Staleness(f)
	if c.o.json {
		return e.statusJSON(c.w, f, res, stale)
	}
	p, _ := e.Profile()
	fmt.Fprintf(c.w, "Flow %s  (%s, %s, %s)\n", f.Meta.ID, res.Format, p.Model, res.Encoding)
	if len(f.Parts) == 0 {
		fmt.Fprintln(c.w, "  no parts yet: `dossier evidence add PATH[::RANGE]`, and the request: /request TEXT in the workbench, or `dossier evidence add --role user --text \"...\"`")
	}
	// The columns are as wide as their longest cell (at least the
	// widths most parts fit): a long part id does not push its row out
	// of line.
	idW, stateW := 28, 22
	for _, p := range f.Parts {
		idW = max(idW, len(p.ID()))
		stateW = max(stateW, len(strings.Join(States(p, stale[p]), ",")))
	}
	heading := ""
	for _, p := range f.Parts {
		if h := Heading(p); h != heading {
			heading = h
			fmt.Fprintf(c.w, "  %s\n", h)
		}
		tok := strconv.Itoa(f.partTokens(res, p))
		if !p.Active() {
			tok = "(" + tok + ")"
		}
		fmt.Fprintf(c.w, "    %-*s %-8s %-*s %8s  %s\n", idW, p.ID(), p.Role, stateW, strings.Join(States(p, stale[p]), ","), tok, SourceLabel(p))
	}
	e.printTotals(c.w, res)
	for _, pr := range f.Problems {
		fmt.Fprintln(c.w, "  ! "+pr)
	}
	if f.Meta.Focus != nil {
		fmt.Fprintf(c.w, "  Focus: %q (`evidence focus off` restores)\n", f.Meta.Focus.Query)
	}
	return nil
}

// Heading is the heading status lists a part under: its band's name, but
// a user part in the system band (the request, 010_request.user.md) is
// under "User request", as the assembled prompt puts it under
// "# User Request" (seed 003), not under "System".
func Heading(p *Part) string {
	r, _ := strconv.Atoi(p.Rank)
	b := BandOf(r)
	if b.Name == "system" && p.Role == "user" {
		return "User request"
	}
	return strings.ToUpper(b.Name[:1]) + b.Name[1:]
}

// States are the marks status and the workbench show for a part; stale is
// what Staleness says of it.
func States(p *Part, stale string) []string {
	var out []string
	switch {
	case p.Refused != "":
		out = append(out, p.Refused)
	case p.Broken != "":
		out = append(out, "broken")
	case p.Active():
		out = append(out, "active")
	default:
		out = append(out, "skipped")
	}
	if p.Link {
		out = append(out, "link")
	}
	if p.Pinned {
		out = append(out, "pinned")
	}
	if p.Detail != assemble.Full {
		out = append(out, string(p.Detail))
	}
	if p.NotUTF8 {
		out = append(out, "not UTF-8")
	}
	if stale != "" {
		out = append(out, stale)
	}
	return out
}

// SourceLabel is "path:100-200 @Symbol", or why a broken part is broken.
func SourceLabel(p *Part) string {
	if p.Broken != "" {
		return p.Broken
	}
	s := p.Source
	if s.Path == "" {
		return ""
	}
	out := s.Path
	if s.Span != "all" && s.StartLine > 0 {
		out += fmt.Sprintf(":%d-%d", s.StartLine, s.EndLine)
	}
	if s.Symbol != "" {
		out += " @" + s.Symbol
	}
	return out
}

func (e *Engine) plan(c *call) error {
	if _, err := e.Flow(); err != nil {
		return err
	}
	_, raw, err := e.build()
	if err != nil {
		return err
	}
	_, err = c.w.Write(raw)
	return err
}

func (e *Engine) budget(c *call) error {
	f, err := e.Flow()
	if err != nil {
		return err
	}
	if len(c.args) > 0 {
		if c.args[0] != "set" || len(c.args) != 2 {
			return usagef("expected `budget` or `budget set N` (N like 32000 or 32k)")
		}
		n, err := parseBudget(c.args[1])
		if err != nil {
			return usagef("%v", err)
		}
		if err := f.Writable(); err != nil {
			return err
		}
		f.Meta.Budget = n
		if err := f.SaveMeta(); err != nil {
			return err
		}
		if n == 0 {
			fmt.Fprintf(c.w, "✓ Budget back to the default\n")
		} else {
			fmt.Fprintf(c.w, "✓ Budget set to %d tokens\n", n)
		}
		if _, err := e.Build(); err != nil {
			return err
		}
	}
	res, _, err := e.Assemble(e.Format())
	if err != nil {
		return err
	}
	budget := e.Budget()
	fmt.Fprintf(c.w, "Budget: %d tokens (%s)\n", budget, e.budgetOrigin())
	fmt.Fprintf(c.w, "  Used: %s, %d%%\n", tokenWord(res.Tokens, res), pct(res.Tokens, budget))
	for _, r := range assemble.Roles {
		fmt.Fprintf(c.w, "  %-9s %7d\n", r, res.ByRole[r])
	}
	fmt.Fprintf(c.w, "  %-9s %7d  (headings and headers)\n", "framing", res.Frame)
	if res.Tokens > budget {
		fmt.Fprintf(c.w, "  Over by %d tokens: `dossier evidence fit` degrades the lowest-priority parts\n", res.Tokens-budget)
	} else {
		fmt.Fprintf(c.w, "  Left: %d tokens\n", budget-res.Tokens)
	}
	return nil
}

func (e *Engine) budgetOrigin() string {
	if e.flow != nil && e.flow.Meta.Budget > 0 {
		return "set for this flow"
	}
	if e.DefaultBudget > 0 {
		return "from the config's prompt.budget"
	}
	p, _ := e.Profile()
	return fmt.Sprintf("40%% of %s's %d-token window", p.Model, p.Window)
}

func pct(n, of int) int {
	if of <= 0 {
		return 0
	}
	return n * 100 / of
}

// parseBudget reads a flow's budget: a token count, or 0, "default" or
// "auto" for none of its own (0), so that the config's or the model's
// default applies again.
func parseBudget(s string) (int, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "0", "default", "auto":
		return 0, nil
	}
	n, err := ParseTokens(s)
	if err != nil {
		return 0, fmt.Errorf("%v, or 0, default or auto for the model's default", err)
	}
	return n, nil
}

// ParseTokens reads a token count: "32000", "32k", "1m".
func ParseTokens(s string) (int, error) {
	mult := 1
	t := strings.ToLower(strings.TrimSpace(s))
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1000, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1000000, strings.TrimSuffix(t, "m")
	}
	n, err := strconv.ParseFloat(t, 64)
	if err != nil || n <= 0 || n*float64(mult) > 1e9 {
		return 0, fmt.Errorf("bad token count %q: give a positive number like 32000 or 32k", s)
	}
	return int(n * float64(mult)), nil
}

func (e *Engine) toggle(c *call) error {
	f, err := e.Flow()
	if err != nil {
		return err
	}
	var want *assemble.Status
	specs := c.args
	if len(specs) > 0 && (specs[0] == "on" || specs[0] == "off") {
		s := assemble.Active
		if specs[0] == "off" {
			s = assemble.Skipped
		}
		want, specs = &s, specs[1:]
	}
	if len(specs) == 0 {
		return usagef("toggle needs a part: an id (300_example), a rank (300) or a range (300-399)")
	}
	parts, err := f.SelectAll(specs)
	if err != nil {
		return err
	}
	if err := f.Writable(); err != nil {
		return err
	}
	changed := 0
	for _, p := range parts {
		to := assemble.Active
		if want != nil {
			to = *want
		} else if !p.Name.Skip {
			to = assemble.Skipped
		}
		ok, err := f.SetStatus(p, to)
		if err != nil {
			return err
		}
		if ok {
			changed++
			fmt.Fprintf(c.w, "✓ %s: %s\n", p.Name, to)
		}
	}
	if changed == 0 {
		fmt.Fprintln(c.w, "nothing to change")
	}
	return e.finish(c.w)
}

// SetStatus renames a part to or from its .skip name. It reports whether
// anything changed.
func (f *Flow) SetStatus(p *Part, to assemble.Status) (bool, error) {
	// The name says the state: a broken, refused or damaged part is
	// skipped whatever its name, and still renames like any other.
	if p.Name.Skip == (to == assemble.Skipped) {
		return false, nil
	}
	n := p.Name
	n.Skip = to == assemble.Skipped
	dst := filepath.Join(filepath.Dir(p.Path), n.String())
	if err := rename(p.Path, dst); err != nil {
		return false, err
	}
	p.Name, p.Path = n, dst
	if p.Broken == "" {
		p.Status = to
	}
	p.File = path.Join(path.Dir(p.File), n.String())
	f.sortParts()
	return true, nil
}

func (e *Engine) remove(c *call) error {
	if err := c.needArgs(1, -1, "ID or RANGE"); err != nil {
		return err
	}
	f, err := e.Flow()
	if err != nil {
		return err
	}
	parts, err := f.SelectAll(c.args)
	if err != nil {
		return err
	}
	if err := f.Writable(); err != nil {
		return err
	}
	for _, p := range parts {
		if err := f.Remove(p); err != nil {
			return err
		}
		fmt.Fprintf(c.w, "✓ Removed %s (kept in build/removed/)\n", p.Name)
	}
	return e.finish(c.w)
}

// Remove moves a part file to build/removed/, where `restore` finds it.
// An older copy of the same name there is kept as NAME~N, and the part's
// pin, fit and focus state is forgotten so a new part with its id starts
// clean.
func (f *Flow) Remove(p *Part) error {
	trash := filepath.Join(f.BuildDir(), "removed")
	if err := os.MkdirAll(trash, DirMode); err != nil {
		return writeErr(trash, err)
	}
	dst := filepath.Join(trash, filepath.Base(p.Path))
	if err := keepAside(dst); err != nil {
		return err
	}
	if err := os.Rename(p.Path, dst); err != nil {
		return writeErr(p.Path, err)
	}
	f.Parts = slices.DeleteFunc(f.Parts, func(q *Part) bool { return q == p })
	return f.forgetState(p.ID())
}

// keepAside renames an existing file at dst to the first free dst~N, so
// what goes to dst next never replaces an older copy.
func keepAside(dst string) error {
	if _, err := os.Lstat(dst); err != nil {
		return nil
	}
	for i := 1; ; i++ {
		old := fmt.Sprintf("%s~%d", dst, i)
		if _, err := os.Lstat(old); err != nil {
			if err := os.Rename(dst, old); err != nil {
				return writeErr(old, err)
			}
			return nil
		}
	}
}

// forgetState drops flow.json entries of a part id.
func (f *Flow) forgetState(id string) error {
	f.Meta.Pinned = slices.DeleteFunc(f.Meta.Pinned, func(s string) bool { return s == id })
	f.Meta.FitSkipped = slices.DeleteFunc(f.Meta.FitSkipped, func(s string) bool { return s == id })
	delete(f.Meta.Detail, id)
	delete(f.Meta.Found, id)
	if f.Meta.Focus != nil {
		delete(f.Meta.Focus.Saved, id)
	}
	return f.SaveMeta()
}

func (e *Engine) pin(c *call) error {
	if err := c.needArgs(1, 2, "ID [off]"); err != nil {
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
	off := len(c.args) == 2 && c.args[1] == "off"
	if len(c.args) == 2 && !off {
		return usagef("expected `pin ID` or `pin ID off`")
	}
	if err := f.Writable(); err != nil {
		return err
	}
	f.Meta.Pinned = slices.DeleteFunc(f.Meta.Pinned, func(s string) bool { return s == p.ID() })
	if !off {
		f.Meta.Pinned = append(f.Meta.Pinned, p.ID())
	}
	p.Pinned = !off
	if err := f.SaveMeta(); err != nil {
		return err
	}
	if off {
		fmt.Fprintf(c.w, "✓ %s unpinned\n", p.ID())
	} else {
		fmt.Fprintf(c.w, "✓ %s pinned: focus and fit leave it as it is\n", p.ID())
	}
	return nil
}

func (e *Engine) restore(c *call) error {
	if err := c.needArgs(1, -1, "a file name from build/removed/"); err != nil {
		return err
	}
	f, err := e.Flow()
	if err != nil {
		return err
	}
	if err := f.Writable(); err != nil {
		return err
	}
	for _, name := range c.args {
		n, ok := ParsePartName(filepath.Base(name))
		if !ok {
			return fmt.Errorf("%s is not a part file name", name)
		}
		from := filepath.Join(f.BuildDir(), "removed", n.String())
		if _, err := os.Lstat(from); err != nil {
			return fmt.Errorf("%s is not in build/removed/: nothing to restore", n)
		}
		if q := f.byRank(atoiRank(n.Rank)); q != nil {
			return fmt.Errorf("rank %s is taken by %s now: move it first (`dossier evidence rank %s N`)", n.Rank, q.ID(), q.ID())
		}
		to := filepath.Join(f.partDir(n.Role), n.String())
		if err := rename(from, to); err != nil {
			return err
		}
		rel, _ := filepath.Rel(f.Dir, to)
		p, err := f.readPart(filepath.ToSlash(rel), n)
		if err != nil {
			return err
		}
		f.Parts = append(f.Parts, p)
		f.sortParts()
		fmt.Fprintf(c.w, "✓ Restored %s\n", n)
	}
	return e.finish(c.w)
}

func atoiRank(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
