package search

import (
	"cmp"
	"math"
	"path"
	"slices"
	"strings"
	"time"
)

// importsPrior is the reranker's prior of import blocks, which match the
// words of everything a file uses and are almost never what a query looks
// for. The priors of tests, prose and release notes are in intent.go.
const importsPrior = 0.7

// rerankDepth is how many fused candidates the heuristics look at; folding
// copies into one result leaves room for others below them.
const rerankDepth = 100

// nearMisses is how many of the best results below the threshold a
// response without results names, so the user sees how close they came.
const nearMisses = 3

// ranked is a result being reranked: rank orders, Score is absolute.
type ranked struct {
	Result
	rank  float64
	meta  *Meta
	class docClass
}

// finish resolves candidates to chunks, applies the reranking heuristics
// of seed 004 (proximity, recency, no overlapping spans from one file),
// the document-kind prior (code above tests, prose and release notes
// unless the query asks for them, see intent.go) and the type filter, folds identical and
// near-duplicate chunks of other files into the best of them, keeps what
// scores at least q.MinScore, cuts to K and finds each result's best line.
// Without results, the best ones below the threshold are returned as near
// misses.
func (v *view) finish(cands []fused, q Query, f filter) (rs, misses []Result, err error) {
	now := time.Now()
	// Sized once, and dedupe and fold filter it in place: in a one-shot
	// process every byte allocated is a fresh page of memory, and each
	// first touch of a page is a page fault (about 17 µs on the VM
	// measured); the slices grown result by result were a fifth of what a
	// text query allocated.
	n := len(cands)
	if q.Mode != Regex {
		n = min(n, rerankDepth)
	}
	all := make([]ranked, 0, n)
	v.prefetch(cands[:min(n, rerankDepth)], q.K)
	var qt map[string]int
	if q.Mode == Hybrid {
		if qt, _, err = v.queryTerms(q.Text); err != nil {
			return nil, nil, err
		}
	}
	for _, c := range cands {
		if len(all) >= rerankDepth && q.Mode != Regex {
			break
		}
		m, mtime, ok, err := v.meta(c.key)
		if err != nil {
			return nil, nil, err
		}
		if !ok || !f.kind(m.Kind, m.SrcType) {
			continue
		}
		prior := 1.0
		if q.Mode != Regex {
			if m.Kind == "imports" {
				prior *= importsPrior
			}
			prior *= proximity(q.Near, c.key.path)
			if qt != nil {
				prior *= 1 + nameBoost*v.nameCover(m.Symbol, qt)
			}
			if mtime > 0 {
				// In whole days, so the same search ranks the same all day.
				age := math.Floor(now.Sub(time.Unix(0, mtime)).Hours() / 24)
				if age >= 0 && age < 30 {
					prior *= 1 + 0.03*(1-age/30)
				}
			}
		}
		r := Result{ID: m.ID, Path: c.key.path, StartLine: m.StartLine, EndLine: m.EndLine, Symbol: m.Symbol,
			Kind: m.Kind, Language: m.Language, Score: c.score * prior, Line: c.line, MatchLine: c.lineNo, Ranks: c.rankMap()}
		for i, name := range retrievers {
			if c.ranks[i] > 0 {
				r.Sources = append(r.Sources, name)
			}
		}
		all = append(all, ranked{Result: r, rank: c.rank * prior, meta: m, class: classOf(m, c.key.path)})
	}
	if q.Mode != Regex {
		applyKindPriors(all, intentOf(q.Text))
		slices.SortStableFunc(all, func(a, b ranked) int { return cmp.Compare(b.rank, a.rank) })
		all = fold(dedupe(all))
	}
	for i := range all {
		all[i].Score = bounded(all[i].Score)
	}
	rs = []Result{}
	var keep []ranked
	for _, r := range all {
		if r.Score < q.MinScore {
			if len(keep) == 0 && len(misses) < nearMisses && r.Score > 0 {
				misses = append(misses, r.Result)
			}
			continue
		}
		keep = append(keep, r)
		if len(keep) == q.K {
			break
		}
	}
	if len(keep) > 0 {
		misses = nil
	}
	if err := v.bestLines(keep, q); err != nil {
		return nil, nil, err
	}
	for _, r := range keep {
		rs = append(rs, r.Result)
	}
	return rs, misses, nil
}

// dedupe drops a result whose lines overlap a better one from the same
// file, in place.
func dedupe(rs []ranked) []ranked {
	out := rs[:0]
	for _, r := range rs {
		overlaps := false
		for _, o := range out {
			if o.Path == r.Path && r.StartLine <= o.EndLine && o.StartLine <= r.EndLine {
				overlaps = true
				break
			}
		}
		if !overlaps {
			out = append(out, r)
		}
	}
	return out
}

// fold folds each result into the first (best) one of another file with
// identical content (listed in its Paths) or a near-duplicate skeleton
// (listed in its Similar); see similar.go. It folds in place.
func fold(rs []ranked) []ranked {
	out := rs[:0]
	for _, r := range rs {
		into := -1
		identical := false
		for i, o := range out {
			if o.Path == r.Path {
				continue
			}
			if r.meta.Hash != 0 && r.meta.Hash == o.meta.Hash {
				into, identical = i, true
				break
			}
			if into < 0 && sameUnit(r, o) && similarity(r.meta.Sig, o.meta.Sig) >= nearDupJaccard {
				into = i
			}
		}
		switch {
		case into < 0:
			out = append(out, r)
		case identical:
			o := &out[into]
			if len(o.Paths) == 0 {
				o.Paths = []string{o.Path}
			}
			if !slices.Contains(o.Paths, r.Path) {
				o.Paths = append(o.Paths, r.Path)
			}
		default:
			o := &out[into]
			if !slices.Contains(o.Similar, r.Path) {
				o.Similar = append(o.Similar, r.Path)
			}
		}
	}
	return out
}

// sameUnit reports whether two results may be copies of one unit: the
// same symbol in files of the same stem (a translation, a vendored or
// generated copy, a per-platform variant: exec_linux.go, exec_windows.go).
// Two functions of one shape are not copies of each other, whether they
// are an operator's overloads or two migrations' Up (001_users.go,
// 002_invoices.go) whose meaning is in the SQL of their literals.
func sameUnit(a, b ranked) bool {
	return a.Symbol == b.Symbol && fileStem(a.Path) == fileStem(b.Path)
}

// fileStem is a path's file name up to its first "_" or ".".
func fileStem(p string) string {
	base := path.Base(p)
	if i := strings.IndexAny(base, "_."); i > 0 {
		return base[:i]
	}
	return base
}

// proximity boosts results near the path the user works on.
func proximity(near, p string) float64 {
	if near == "" {
		return 1
	}
	near = strings.TrimPrefix(path.Clean(near), "./")
	switch {
	case p == near:
		return 1.2
	case path.Dir(p) == path.Dir(near):
		return 1.12
	case strings.SplitN(p, "/", 2)[0] == strings.SplitN(near, "/", 2)[0]:
		return 1.04
	}
	return 1
}
