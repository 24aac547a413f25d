package evidence

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/terms"
)

// relevant is how well one part matches a query.
type relevant struct {
	p *Part
	// lex is the part's BM25 score for the query over the flow's parts,
	// relative to the best part's: 1 for the best match, 0 for none.
	lex float64
	// hit is the best index search score of a result inside the part's
	// span, 0 when none.
	hit float64
}

// matches is the focus rule: a text score at least half the best part's,
// or a text or symbol search hit inside the span that search itself would
// show. Search scores are absolute (no longer a share of the best
// result's), so the line is search's own minimum score, not a second one.
func (r relevant) matches() bool { return r.lex >= 0.5 || r.hit >= search.DefaultMinScore }

// relevance scores every evidence part of f against query, with the
// workspace index's hybrid search when there is an index. hits are the
// search results scoring at least search.DefaultMinScore, for `ask` (a
// query nothing matches offers no candidates); note says why search was
// left out.
func (e *Engine) relevance(ctx context.Context, f *Flow, query string) (rs []relevant, hits []search.Result, note string) {
	tok := terms.New()
	qterms := tok.Terms(query)
	df := map[string]int{}
	docs := make([]map[string]int, len(f.Parts))
	for i, p := range f.Parts {
		if p.Role != assemble.Evidence {
			continue
		}
		docs[i] = tok.Terms(p.Heading + "\n" + p.Source.Path + "\n" + p.Source.Symbol + "\n" + p.Body)
		for t := range qterms {
			if docs[i][t] > 0 {
				df[t]++
			}
		}
	}
	n := float64(len(f.Parts) + 1)
	idf := map[string]float64{}
	for t := range qterms {
		idf[t] = math.Log(1 + n/float64(df[t]+1))
	}
	var avg float64
	lens := make([]float64, len(f.Parts))
	for i, d := range docs {
		for _, c := range d {
			lens[i] += float64(c)
		}
		avg += lens[i]
	}
	avg = max(1, avg/n)
	bm25 := func(i int) float64 {
		var s float64
		for t := range qterms {
			if tf := float64(docs[i][t]); tf > 0 {
				s += idf[t] * tf * 2.2 / (tf + 1.2*(0.25+0.75*lens[i]/avg))
			}
		}
		return s
	}
	var best float64
	for i := range f.Parts {
		if docs[i] != nil {
			best = max(best, bm25(i))
		}
	}
	resp, err := search.NewEngine().SearchRoot(ctx, e.Root, search.Query{Text: query, K: 40, MinScore: search.DefaultMinScore})
	if err != nil {
		note = "search left out: " + firstLine(err.Error())
	} else {
		hits = resp.Results
	}
	for i, p := range f.Parts {
		if p.Role != assemble.Evidence {
			continue
		}
		r := relevant{p: p}
		if best > 0 {
			r.lex = bm25(i) / best
		}
		for _, h := range hits {
			// A hit that text or symbol search found shares words with
			// the query; one found by vectors alone is left to the text
			// score.
			lexical := slices.Contains(h.Sources, "text") || slices.Contains(h.Sources, "symbol")
			if lexical && covers(p, h.Path, h.StartLine, h.EndLine) {
				r.hit = max(r.hit, h.Score)
			}
		}
		rs = append(rs, r)
	}
	slices.SortStableFunc(rs, func(a, b relevant) int {
		return cmp.Compare(b.lex+b.hit, a.lex+a.hit)
	})
	return rs, hits, note
}

// covers reports whether a part's span overlaps lines start..end of path.
func covers(p *Part, path string, start, end int) bool {
	s := p.Source
	if s.Path != path {
		return false
	}
	if s.Span == "all" || s.StartLine == 0 {
		return true
	}
	return start <= s.EndLine && end >= s.StartLine
}

// metaWords are the words of a question about the flow, not its topic.
var metaWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"what": true, "whats": true, "what's": true, "which": true, "is": true, "are": true, "the": true, "for": true,
		"evidence": true, "cover": true, "covers": true, "covering": true, "covered": true, "missing": true,
		"gap": true, "gaps": true, "redundant": true, "duplicate": true, "duplicated": true, "overlap": true,
		"overlapping": true, "about": true, "context": true, "flow": true, "there": true, "need": true,
		"needed": true, "else": true, "do": true, "i": true, "we": true, "have": true, "in": true, "of": true,
		"to": true, "any": true, "parts": true, "part": true, "not": true, "yet": true, "lacking": true,
	}
})

// topic strips a question down to its subject: "What's missing for
// authentication?" -> "authentication".
func topic(q string) string {
	var keep []string
	for _, w := range strings.Fields(q) {
		bare := strings.ToLower(strings.Trim(w, "?!.,:;\"'`"))
		if bare == "" || metaWords()[bare] {
			continue
		}
		keep = append(keep, strings.Trim(w, "?!.,;\"'`"))
	}
	return strings.Join(keep, " ")
}
