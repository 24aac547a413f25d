// Package repomap ranks a repository's definitions by its reference graph,
// as aider ranks its repo map: a file that mentions a name another file
// defines points at that file, PageRank runs over those edges with a
// restart vector (plain PageRank when it is empty, personalised to the
// files a flow holds otherwise), and each file's rank flows along its
// edges to the definitions it reaches. Everything here is pure: a Graph
// in, a ranking out, the same every time for the same input.
package repomap

import (
	"math"
	"slices"
	"strings"
)

// Def is one definition the map may list.
type Def struct {
	Path, Name string
	Line       int
	// Text is the line the map shows: the signature, or kind and name.
	Text string
}

// Graph is the reference graph: the files in path order and, per file,
// how often it mentions each name another file defines.
type Graph struct {
	Files []string
	Defs  []Def
	// refs[i] holds file i's outgoing edges, sorted by target then name.
	refs  [][]edge
	index map[string]int
}

type edge struct {
	to   int
	name string
	w    float64
}

// NewGraph builds the graph from the definitions and, per file, the
// count of each identifier it mentions (mentions of names no other file
// defines are ignored). A name defined in many files says little about
// which one is meant (String, Error), so its edges weigh a tenth, as
// aider weighs them; a file's mentions of its own names are no edges.
func NewGraph(defs []Def, mentions map[string]map[string]int) *Graph {
	g := &Graph{index: map[string]int{}}
	definers := map[string][]string{}
	for _, d := range defs {
		g.index[d.Path] = 0
		if ps := definers[d.Name]; len(ps) == 0 || ps[len(ps)-1] != d.Path {
			definers[d.Name] = append(ps, d.Path)
		}
	}
	for p := range mentions {
		g.index[p] = 0
	}
	for p := range g.index {
		g.Files = append(g.Files, p)
	}
	slices.Sort(g.Files)
	for i, p := range g.Files {
		g.index[p] = i
	}
	g.Defs = slices.Clone(defs)
	slices.SortFunc(g.Defs, func(a, b Def) int {
		return cmpDef(a, b)
	})
	for name, ps := range definers {
		slices.Sort(ps)
		definers[name] = slices.Compact(ps)
	}
	g.refs = make([][]edge, len(g.Files))
	for p, counts := range mentions {
		from := g.index[p]
		var es []edge
		for name, n := range counts {
			ps := definers[name]
			mul := 1.0
			if len(ps) > 5 {
				mul = 0.1
			}
			if strings.HasPrefix(name, "_") {
				mul *= 0.1
			}
			for _, q := range ps {
				if q != p {
					es = append(es, edge{g.index[q], name, mul * math.Sqrt(float64(n))})
				}
			}
		}
		slices.SortFunc(es, func(a, b edge) int {
			if a.to != b.to {
				return a.to - b.to
			}
			return strings.Compare(a.name, b.name)
		})
		g.refs[from] = es
	}
	return g
}

func cmpDef(a, b Def) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	if a.Line != b.Line {
		return a.Line - b.Line
	}
	return strings.Compare(a.Name, b.Name)
}

// Ranked is a definition with its score.
type Ranked struct {
	Def
	Score, FileScore float64
}

// Rank scores every definition: PageRank over the files restarting at
// focus (weights per path; paths the graph lacks are ignored, and an empty
// focus restarts everywhere alike), then each file's rank split over its
// edges to the definitions they name. The result is best first, ties in
// path, line and name order.
func (g *Graph) Rank(focus map[string]float64) []Ranked {
	n := len(g.Files)
	if n == 0 {
		return nil
	}
	restart := make([]float64, n)
	var sum float64
	for p, w := range focus {
		if i, ok := g.index[p]; ok && w > 0 {
			restart[i] += w
			sum += w
		}
	}
	if sum == 0 {
		for i := range restart {
			restart[i] = 1
		}
		sum = float64(n)
	}
	for i := range restart {
		restart[i] /= sum
	}
	out := make([]float64, n)
	for i, es := range g.refs {
		for _, e := range es {
			out[i] += e.w
		}
	}
	rank := pagerank(g.refs, out, restart)
	defScore := map[[2]string]float64{}
	for i, es := range g.refs {
		for _, e := range es {
			defScore[[2]string{g.Files[e.to], e.name}] += rank[i] * e.w / out[i]
		}
	}
	res := make([]Ranked, len(g.Defs))
	for i, d := range g.Defs {
		res[i] = Ranked{d, defScore[[2]string{d.Path, d.Name}], rank[g.index[d.Path]]}
	}
	slices.SortStableFunc(res, func(a, b Ranked) int {
		if a.Score != b.Score {
			return cmpFloat(b.Score, a.Score)
		}
		if a.FileScore != b.FileScore {
			return cmpFloat(b.FileScore, a.FileScore)
		}
		return cmpDef(a.Def, b.Def)
	})
	return res
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	return 1
}

// pagerank is the power iteration with damping 0.85; a file with no
// edges gives its rank back through the restart vector.
func pagerank(refs [][]edge, out, restart []float64) []float64 {
	const damping, rounds, tolerance = 0.85, 100, 1e-9
	n := len(refs)
	rank := slices.Clone(restart)
	next := make([]float64, n)
	for range rounds {
		var dangling float64
		for i := range next {
			next[i] = 0
		}
		for i, es := range refs {
			if out[i] == 0 {
				dangling += rank[i]
				continue
			}
			for _, e := range es {
				next[e.to] += damping * rank[i] * e.w / out[i]
			}
		}
		var diff float64
		for i := range next {
			next[i] += (1 - damping + damping*dangling) * restart[i]
			diff += math.Abs(next[i] - rank[i])
		}
		rank, next = next, rank
		if diff < tolerance {
			break
		}
	}
	return rank
}

// Render writes the first n ranked definitions grouped by file, as
// aider's map shows them: the files in the order of their best
// definition, each path followed by its definitions' lines, indented, in
// line order.
func Render(ranked []Ranked, n int) string {
	n = min(n, len(ranked))
	var order []string
	byFile := map[string][]Def{}
	for _, r := range ranked[:n] {
		if _, ok := byFile[r.Path]; !ok {
			order = append(order, r.Path)
		}
		byFile[r.Path] = append(byFile[r.Path], r.Def)
	}
	var b strings.Builder
	for _, p := range order {
		b.WriteString(p)
		b.WriteString(":\n")
		ds := byFile[p]
		slices.SortFunc(ds, cmpDef)
		for _, d := range ds {
			b.WriteString("  ")
			b.WriteString(d.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Fit returns the largest n whose Render fits within budget by count,
// found by binary search (the rendering grows with n), and its text.
func Fit(ranked []Ranked, budget int, count func(string) int) (int, string) {
	lo, hi := 0, min(len(ranked), budget)
	text := ""
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if t := Render(ranked, mid); count(t) <= budget {
			lo, text = mid, t
		} else {
			hi = mid - 1
		}
	}
	if text == "" && lo > 0 {
		text = Render(ranked, lo)
	}
	return lo, text
}
