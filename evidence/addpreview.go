package evidence

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/assemble"
)

// ConfirmError is `evidence add` refusing to add many files nobody
// confirmed: no terminal to ask on (a script, the workbench's command
// line, an MCP call) and no --yes. The preview was written to the
// command's output before it.
type ConfirmError struct{ Files int }

func (e *ConfirmError) Error() string {
	return fmt.Sprintf("%d files to add, and nobody was asked (no terminal): nothing added; look at the list and pass --yes to add them", e.Files)
}

// pricing is what a set of files would cost as parts of the flow, from a
// trial assembly of the flow with them: each count is the one `evidence
// status` shows once they are in, and total is the whole prompt's.
type pricing struct {
	per   []int
	total int
}

// priceFiles assembles f with one part per extract added after its parts (at
// the ranks Add would give them, as outlines when outline is set) and
// reads each one's tokens. Nothing is written; f is left as it was.
func (e *Engine) priceFiles(f *Flow, xs []Extract, band Band, outline bool) (pricing, assemble.Result, error) {
	saved := f.Parts
	defer func() { f.Parts = saved }()
	f.Parts = slices.Clone(saved)
	trial := make([]*Part, 0, len(xs))
	for _, x := range xs {
		r, err := f.NextRank(band)
		if err != nil {
			return pricing{}, assemble.Result{}, err
		}
		name := PartName{Role: assemble.Evidence, Kind: kindFor(x), Rank: FormatRank(r)}
		p := &Part{Name: name, Content: renderEvidence(x.Source, x.Content)}
		p.Rank, p.Kind, p.Role, p.File = name.Rank, name.Kind, name.Role, path.Join(evidenceDir, name.String())
		p.Status, p.Bytes, p.CID = assemble.Active, len(p.Content), CID([]byte(p.Content))
		p.fill(f)
		if outline {
			setOutline(p)
		}
		trial = append(trial, p)
		f.Parts = append(f.Parts, p)
	}
	f.sortParts()
	res, _, err := e.assembleFlow(f, e.Format())
	if err != nil {
		return pricing{}, res, err
	}
	pr := pricing{total: res.Tokens}
	for _, p := range trial {
		pr.per = append(pr.per, f.partTokens(res, p))
	}
	return pr, res, nil
}

// preview lists the files about to be added with their tokens and the
// prompt's total against the budget. When they do not fit what is left
// of it, it prices them as outlines too and says so; it says which form
// they are added in (--outline chooses outlines).
func (e *Engine) preview(w io.Writer, f *Flow, sels []string, xs []Extract, band Band, outline bool) error {
	budget := e.Budget()
	now, _, err := e.assembleFlow(f, e.Format())
	if err != nil {
		return err
	}
	full, res, err := e.priceFiles(f, xs, band, false)
	if err != nil {
		return err
	}
	var lines pricing
	over := budget > 0 && full.total > budget
	if over || outline {
		if lines, _, err = e.priceFiles(f, xs, band, true); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "%d files to add, one part each:\n", len(xs))
	width := 0
	for _, s := range sels {
		width = max(width, len(s))
	}
	for i, s := range sels {
		fmt.Fprintf(w, "  %-*s %8d tokens", width, s, full.per[i])
		if lines.per != nil {
			fmt.Fprintf(w, "  (outline %d)", lines.per[i])
		}
		fmt.Fprintln(w)
	}
	sum := func(p pricing) (n int) {
		for _, t := range p.per {
			n += t
		}
		return n
	}
	fmt.Fprintf(w, "  Total: %s for the files; the prompt would be %d tokens", tokenWord(sum(full), res), full.total)
	if budget > 0 {
		fmt.Fprintf(w, " of the %d-token budget (%d left now)", budget, max(0, budget-now.Tokens))
	}
	fmt.Fprintln(w)
	switch {
	case over && !outline:
		fmt.Fprintf(w, "! They do not fit: the prompt would be %d tokens over the budget. As outlines (signatures only, as `evidence fit` degrades parts) they cost %d tokens and the prompt %d", full.total-budget, sum(lines), lines.total)
		if lines.total <= budget {
			fmt.Fprint(w, ", which fits")
		}
		fmt.Fprintln(w, ": add them with --outline for that.")
		fmt.Fprintln(w, "  Adding: full text (one part per file).")
	case outline:
		fmt.Fprintf(w, "  Adding: outlines (--outline): %d tokens for the files, the prompt %d", sum(lines), lines.total)
		if budget > 0 && lines.total > budget {
			fmt.Fprintf(w, ", still %d over the budget", lines.total-budget)
		}
		fmt.Fprintln(w, "; `evidence fit off` restores the full text.")
	default:
		fmt.Fprintln(w, "  Adding: full text (one part per file).")
	}
	return nil
}

// confirm asks on Stdin whether to add n files; without a terminal it
// refuses (ConfirmError) so that a script never adds a folder unseen.
func (e *Engine) confirm(w io.Writer, n int) (bool, error) {
	if !e.Interactive {
		return false, &ConfirmError{Files: n}
	}
	fmt.Fprintf(w, "Add these %d files? [y/N] ", n)
	line, err := bufio.NewReader(e.Stdin).ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(w)
		return false, nil
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

// printSkipped lists what a folder or glob held that is not added.
func printSkipped(w io.Writer, x expansion) {
	for _, s := range x.skipped {
		fmt.Fprintf(w, "  skipped %s: %s\n", s.path, s.reason)
	}
	if x.ignored > 0 {
		fmt.Fprintf(w, "  (%d ignored by .gitignore, .dossierignore or the built-in ignores, as `dossier index` leaves them out)\n", x.ignored)
	}
}
