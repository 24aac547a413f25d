package evidence

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/dossierhq/dossier/assemble"
)

func init() {
	register(&command{name: "ask", args: `"QUESTION"`,
		summary: "Answer questions about the flow from the index, without an LLM (seed 003):\n" +
			"\"what evidence covers X\", \"what is missing for X\" (index hits not in the flow),\n" +
			"\"what evidence is redundant\" (overlapping spans, near-duplicate content).",
		flags: func(fs *pflag.FlagSet, o *opts) {
			fs.IntVar(&o.limit, "limit", 10, "most answers to list")
		},
		run: (*Engine).ask})
}

// Question kinds of seed 003's /ask.
const (
	askCovers    = "covers"
	askMissing   = "missing"
	askRedundant = "redundant"
)

var (
	missingWords   = lazyRegexp(`(?i)\b(missing|gaps?|lack(s|ing)?|not yet|what else|need(ed)?)\b`)
	redundantWords = lazyRegexp(`(?i)\b(redundan(t|cy)|duplicat(e|ed|es)|overlap(s|ping)?|repeated)\b`)
)

// questionKind classifies a question.
func questionKind(q string) string {
	switch {
	case redundantWords().MatchString(q):
		return askRedundant
	case missingWords().MatchString(q):
		return askMissing
	}
	return askCovers
}

func (e *Engine) ask(c *call) error {
	q := strings.TrimSpace(strings.Join(c.args, " "))
	if q == "" {
		return usagef(`ask needs a question: "what evidence covers error handling?"`)
	}
	f, err := e.Flow()
	if err != nil {
		return err
	}
	kind := questionKind(q)
	if kind == askRedundant {
		return e.askRedundant(c, f)
	}
	subject := topic(q)
	if subject == "" {
		return usagef("what is the question about? e.g. \"what is missing for authentication\"")
	}
	rs, hits, note := e.relevance(c.ctx, f, subject)
	if kind == askCovers {
		n := 0
		fmt.Fprintf(c.w, "Evidence covering %q:\n", subject)
		for _, r := range rs {
			if !r.matches() || n >= c.o.limit {
				continue
			}
			n++
			state := ""
			if !r.p.Active() {
				state = "  (skipped)"
			}
			fmt.Fprintf(c.w, "  %-28s %-36s text %.2f  search %.2f%s\n", r.p.Name, SourceLabel(r.p), r.lex, r.hit, state)
		}
		if n == 0 {
			fmt.Fprintf(c.w, "  none: `dossier ask \"what is missing for %s\"` lists candidates from the index\n", subject)
		}
	} else {
		fmt.Fprintf(c.w, "Missing for %q (index results not in the flow):\n", subject)
		n := 0
		cov := f.Coverage()
		for _, h := range hits {
			if n >= c.o.limit {
				continue
			}
			// A hit a part holds only in part is still missing its rest.
			if _, in := cov.Covering(h.Path, h.StartLine, h.EndLine); in {
				continue
			}
			n++
			sel := fmt.Sprintf("%s::%d,%d", h.Path, h.StartLine, h.EndLine)
			fmt.Fprintf(c.w, "  %-48s %-28s %.2f\n", sel, h.Symbol, h.Score)
		}
		if n == 0 && note == "" {
			fmt.Fprintln(c.w, "  nothing: the flow covers every result the index found")
		} else if n > 0 {
			fmt.Fprintln(c.w, "  add one with `dossier evidence add SELECTOR`")
		}
	}
	if note != "" {
		fmt.Fprintln(c.w, "  note: "+note)
	}
	return nil
}

// askRedundant lists overlapping spans of one file and near-duplicate
// content (shared lines, Jaccard >= 0.8) across parts.
func (e *Engine) askRedundant(c *call, f *Flow) error {
	ev := f.EvidenceParts()
	shingles := make([]map[string]bool, len(ev))
	for i, p := range ev {
		shingles[i] = lineSet(p.Code + p.Body)
	}
	n := 0
	fmt.Fprintln(c.w, "Redundant evidence:")
	for i := range ev {
		for j := i + 1; j < len(ev); j++ {
			a, b := ev[i], ev[j]
			if a.Source.Path != "" && a.Source.Path == b.Source.Path && overlapLines(a.Source, b.Source) > 0 {
				n++
				fmt.Fprintf(c.w, "  %s and %s overlap in %s (%d lines)\n", a.ID(), b.ID(), a.Source.Path, overlapLines(a.Source, b.Source))
				continue
			}
			if s := jaccard(shingles[i], shingles[j]); s >= 0.8 {
				n++
				fmt.Fprintf(c.w, "  %s and %s are near-duplicates (%.0f%% of lines shared)\n", a.ID(), b.ID(), s*100)
			}
		}
	}
	if n == 0 {
		fmt.Fprintln(c.w, "  none: no overlapping spans or near-duplicate parts")
	} else {
		fmt.Fprintln(c.w, "  skip one with `dossier evidence toggle off ID` or remove it")
	}
	return nil
}

func overlapLines(a, b assemble.Source) int {
	if a.Span == "all" || b.Span == "all" {
		return min(a.EndLine-a.StartLine, b.EndLine-b.StartLine) + 1
	}
	lo, hi := max(a.StartLine, b.StartLine), min(a.EndLine, b.EndLine)
	return max(0, hi-lo+1)
}

// lineSet is the set of a text's trimmed non-trivial lines.
func lineSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); len(l) > 3 {
			out[l] = true
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	small, big := a, b
	if len(small) > len(big) {
		small, big = big, small
	}
	inter := 0
	for k := range small {
		if big[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
