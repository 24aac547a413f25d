package search

import (
	"slices"
	"strings"
)

// fused is a candidate with its fused score and where it came from.
type fused struct {
	key key
	// rank orders the candidates; score is the absolute score (see fuse).
	rank, score float64
	line        string
	lineNo      int
	ranks       [len(retrievers)]int // per retrievers, 0 when not in its list
}

// retrievers are the lists fuse may merge, in the order a result names
// its sources.
var retrievers = [...]string{"text", "vector", "symbol", "regex"}

// retriever is the index of name in retrievers.
func retriever(name string) int {
	for i, r := range retrievers {
		if r == name {
			return i
		}
	}
	panic("search: unknown retriever " + name)
}

// rankMap returns f's ranks by retriever name, as a Result holds them: a
// map made only for the candidates that become results, not for each of
// the hundreds fusion merges.
func (f *fused) rankMap() map[string]int {
	m := make(map[string]int, 2)
	for i, r := range f.ranks {
		if r > 0 {
			m[retrievers[i]] = r
		}
	}
	return m
}

// Hybrid fusion weights: a candidate's fused score is its text score plus
// these shares of its vector and symbol scores. Scores, not ranks: BM25
// and cosine both say how well a chunk matches, and rank fusion throws
// that away (measured with cmd/dossier-retrieval: reciprocal-rank fusion
// gained a third of what this does).
const (
	vectorWeight = 0.5
	symbolWeight = 0.1
)

// fuse merges ranked lists, each hit with its retriever's own score (raw)
// and its absolute one (score, see relevance.go); cos holds the vector
// scores of candidates outside the vector list. Candidates are ranked by
// the weighted sum of each list's raw scores over its best (see
// vectorWeight): the fusion measured best. Their absolute score is the
// best absolute fusion any candidate reaches (the same weighted sum of
// absolute scores, none negative) times their rank's share of the best
// rank, so the order and the proportions are the measured fusion's and
// the level is the evidence's. Weighting each leg by its own confidence
// instead cost 0.010-0.015 of hybrid MRR on the Go set. With one list,
// each hit keeps its absolute score. The result is sorted, best first.
func fuse(lists map[string][]hit, order []string, cos map[key]hit) ([]fused, int) {
	weight := map[string]float64{"vector": vectorWeight, "symbol": symbolWeight}
	// A list whose best hit scores 0 holds no evidence: builtin vectors
	// of a query of words no chunk has (a symbol's typo) match only by
	// collision (see scored), and their cosines would order the symbol
	// leg's names. When another list has evidence, it takes no part and
	// the others are weighed as if it were not asked for.
	var active, evident []string
	for _, name := range order {
		if hs := lists[name]; len(hs) > 0 && hs[0].raw > 0 {
			active = append(active, name)
			if hs[0].score > 0 {
				evident = append(evident, name)
			}
		}
	}
	if len(evident) > 0 {
		active = evident
	}
	hybrid := len(active) > 1
	n := 0
	for _, name := range active {
		n += len(lists[name])
	}
	// The candidates by value in one slice, sorted in place: one
	// allocation, not one per candidate and a copy (see finish on fresh
	// pages).
	byKey := make(map[key]int, n)
	out := make([]fused, 0, n)
	for _, name := range active {
		hs := lists[name]
		ri := retriever(name)
		w, top := 1.0, hs[0].raw
		if hybrid && weight[name] > 0 {
			w = weight[name]
		}
		add := func(f *fused, h hit) {
			f.rank += w * h.raw / top
			f.score += w * max(h.score, 0)
		}
		for i, h := range hs {
			at, ok := byKey[h.key]
			if !ok {
				at = len(out)
				byKey[h.key] = at
				out = append(out, fused{key: h.key, line: h.line, lineNo: h.lineNo})
			}
			f := &out[at]
			f.ranks[ri] = i + 1
			add(f, h)
		}
		if name == "vector" {
			for i := range out {
				f := &out[i]
				if c, ok := cos[f.key]; ok && f.ranks[ri] == 0 {
					add(f, c)
				}
			}
		}
	}
	bestRank, bestScore := 0.0, 0.0
	for _, f := range out {
		bestRank, bestScore = max(bestRank, f.rank), max(bestScore, f.score)
	}
	res := out
	for i := range res {
		f := &res[i]
		f.score = 0
		if bestRank > 0 {
			f.score = f.rank / bestRank * bestScore
		}
	}
	slices.SortStableFunc(res, func(a, b fused) int {
		switch {
		case a.rank > b.rank:
			return -1
		case a.rank < b.rank:
			return 1
		}
		return strings.Compare(a.key.path, b.key.path)*2 + cmpInt(a.key.ord, b.key.ord)
	})
	return res, len(res)
}
