package evidence

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/dossierhq/dossier/assemble"
)

func init() {
	register(&command{group: "evidence", name: "fit", args: "[N] | off",
		summary: "Bring the prompt under the budget (or N tokens), one rank band at a time from the\n" +
			"lowest priority (400s, then 300s, ...): a band's parts go from full text to an outline,\n" +
			"then to a one-line path mention, then are skipped, before the next band is touched, so\n" +
			"critical parts are the last. System, user and pinned parts are never touched.\n" +
			"`fit off` undoes it all.",
		run: (*Engine).fit})
}

func (e *Engine) fit(c *call) error {
	f, err := e.Flow()
	if err != nil {
		return err
	}
	if len(c.args) == 1 && c.args[0] == "off" {
		return e.fitOff(c, f)
	}
	if err := c.needArgs(0, 1, "[N] or off"); err != nil {
		return err
	}
	target := e.Budget()
	if len(c.args) == 1 {
		if target, err = ParseTokens(c.args[0]); err != nil {
			return usagef("%v", err)
		}
	}
	res, _, err := e.Assemble(e.Format())
	if err != nil {
		return err
	}
	if res.Tokens <= target {
		fmt.Fprintf(c.w, "already under the budget: %s of %d\n", tokenWord(res.Tokens, res), target)
		return nil
	}
	if err := f.Writable(); err != nil {
		return err
	}
	before := res.Tokens
	for _, band := range fitBands(f) {
		for _, step := range []assemble.Detail{assemble.Outline, assemble.PathOnly, "skip"} {
			for _, p := range band {
				if res.Tokens <= target {
					break
				}
				was := f.partTokens(res, p)
				if ok, err := e.degrade(f, p, step); err != nil {
					return err
				} else if !ok {
					continue
				}
				if res, _, err = e.Assemble(e.Format()); err != nil {
					return err
				}
				what, now := string(step), f.partTokens(res, p)
				if step == "skip" {
					what, now = "skipped", 0
				}
				fmt.Fprintf(c.w, "  %-28s %s (%d -> %d tokens)\n", p.ID(), what, was, now)
			}
		}
	}
	if err := f.SaveMeta(); err != nil {
		return err
	}
	if _, err := e.Build(); err != nil {
		return err
	}
	if res.Tokens > target {
		fmt.Fprintf(c.w, "! still over by %d tokens: what is left is system, user and pinned parts (and headings); raise the budget or unpin\n", res.Tokens-target)
	} else {
		fmt.Fprintf(c.w, "✓ Fit: %d -> %s, budget %d (`evidence fit off` undoes)\n", before, tokenWord(res.Tokens, res), target)
	}
	return nil
}

// fitBands groups the parts fit may lower by rank band, the
// lowest-priority band (the highest ranks) first and, inside a band, the
// highest rank first. Fit takes a whole band from full text to outline,
// path only and skipped before it touches the next, so the critical band
// is the last touched. System, user and pinned parts are never in it.
func fitBands(f *Flow) [][]*Part {
	by := map[int][]*Part{}
	for _, p := range f.Parts {
		if p.Role != assemble.Evidence || !p.Active() || p.Pinned || p.Broken != "" {
			continue
		}
		r, _ := strconv.Atoi(p.Rank)
		by[BandOf(r).Low] = append(by[BandOf(r).Low], p)
	}
	lows := slices.Sorted(maps.Keys(by))
	slices.Reverse(lows)
	out := make([][]*Part, 0, len(lows))
	for _, low := range lows {
		band := by[low]
		slices.SortStableFunc(band, func(a, b *Part) int { return strings.Compare(b.Rank, a.Rank) })
		out = append(out, band)
	}
	return out
}

// degrade lowers p one level; it reports whether p changed.
func (e *Engine) degrade(f *Flow, p *Part, step assemble.Detail) (bool, error) {
	if step == "skip" {
		// Recorded before the rename, so `fit off` finds it even when a
		// later step fails.
		f.Meta.FitSkipped = append(f.Meta.FitSkipped, p.ID())
		if err := f.SaveMeta(); err != nil {
			return false, err
		}
		if _, err := f.SetStatus(p, assemble.Skipped); err != nil {
			return false, err
		}
		return true, nil
	}
	if p.Detail == step || (step == assemble.Outline && p.Detail == assemble.PathOnly) {
		return false, nil
	}
	if step == assemble.Outline {
		if !setOutline(p) {
			return false, nil // nothing to gain; path-only comes next
		}
	}
	p.Detail = step
	if f.Meta.Detail == nil {
		f.Meta.Detail = map[string]assemble.Detail{}
	}
	f.Meta.Detail[p.ID()] = step
	return true, nil
}

// setOutline puts p at Detail Outline, unless its outline is empty or no
// shorter than its code; it reports whether it did.
func setOutline(p *Part) bool {
	out := Outline(p.Code, p.Source.Language)
	if out == "" || len(out) >= len(p.Code) {
		return false
	}
	p.OutlineText, p.Detail = out, assemble.Outline
	return true
}

func (e *Engine) fitOff(c *call, f *Flow) error {
	if err := f.Writable(); err != nil {
		return err
	}
	n := 0
	for _, p := range f.Parts {
		if _, ok := f.Meta.Detail[p.ID()]; ok {
			p.Detail, p.OutlineText = assemble.Full, ""
			n++
		}
		if slices.Contains(f.Meta.FitSkipped, p.ID()) {
			if _, err := f.SetStatus(p, assemble.Active); err != nil {
				return err
			}
			n++
		}
	}
	f.Meta.Detail, f.Meta.FitSkipped = nil, nil
	if err := f.SaveMeta(); err != nil {
		return err
	}
	fmt.Fprintf(c.w, "✓ Fit off: %d part(s) back to full text and active\n", n)
	return e.finish(c.w)
}

// declLine matches lines that declare something in the common languages:
// what an outline keeps.
var declLine = lazyRegexp(`^\s*(?:(?:export|public|private|protected|internal|static|abstract|async|pub(?:\([a-z]+\))?|override|final|default|unsafe|extern|inline|virtual)\s+)*` +
	`(?:func|type|class|def|interface|struct|enum|trait|impl|fn|function|module|namespace|package|const|var|let|val|object|record|union|typedef|template|macro_rules!|@interface)\b`)

// Outline keeps the declaration lines of code (signatures, types,
// Markdown headings) and marks each elided run with the indentation of the
// line before it and "...". It is language-agnostic on purpose: it works
// for any part, indexed or not.
func Outline(code, lang string) string {
	if code == "" {
		return ""
	}
	var b strings.Builder
	elided := false
	for _, line := range strings.SplitAfter(code, "\n") {
		keep := declLine().MatchString(line)
		if lang == "markdown" {
			keep = strings.HasPrefix(line, "#")
		}
		if keep {
			b.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				b.WriteString("\n")
			}
			elided = false
			continue
		}
		if !elided && strings.TrimSpace(line) != "" {
			indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			b.WriteString(indent + "...\n")
			elided = true
		}
	}
	return b.String()
}
