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
	"unicode"
)

// Def is one definition the map may list.
type Def struct {
	Path, Name string
	Line       int
	// Text is the line the map shows: the signature, or kind and name.
	Text string
}

// Graph is the reference graph: the files in path order, the names they
// define, and per file how often it mentions each defined name. A mention
// is an edge to every file that defines the name, each taking an equal
// share, kept as file → name → definers so a name defined in a thousand
// files (String) costs one entry per mention, not a thousand.
type Graph struct {
	Files []string
	Defs  []Def
	// mentions[i] are file i's mentions, sorted by name.
	mentions [][]mention
	// definers[n] are the files that define name n, in path order.
	definers [][]int32
	names    []string
	// defName[i] is the name id of Defs[i].
	defName []int32
	index   map[string]int
}

type mention struct {
	name int32
	w    float64
}

// NewGraph builds the graph from the definitions and, per file, the
// count of each identifier it mentions (names nobody defines, and a
// file's mentions of names only it defines, are ignored). A name defined
// in many files says little about which one is meant, so its mentions
// weigh a tenth, as aider weighs them; so do names starting with '_',
// while a long camelCase or snake_case name weighs tenfold; and
// a name most files mention weighs by its rarity.
func NewGraph(defs []Def, mentions map[string]map[string]int) *Graph {
	g := &Graph{index: map[string]int{}}
	for _, d := range defs {
		g.index[d.Path] = 0
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
	slices.SortFunc(g.Defs, cmpDef)
	nameIDs := map[string]int32{}
	for _, d := range g.Defs {
		id, ok := nameIDs[d.Name]
		if !ok {
			id = int32(len(g.names))
			nameIDs[d.Name] = id
			g.names = append(g.names, d.Name)
			g.definers = append(g.definers, nil)
		}
		g.defName = append(g.defName, id)
		// Defs are in path order: a repeated definer is the last one.
		f := int32(g.index[d.Path])
		if ds := g.definers[id]; len(ds) == 0 || ds[len(ds)-1] != f {
			g.definers[id] = append(ds, f)
		}
	}
	// A word most files mention (func, to, in: the scan reads comments
	// and keywords too) tells nothing: weigh mentions by the name's
	// inverse document frequency.
	df := make([]int, len(g.names))
	for _, counts := range mentions {
		for name := range counts {
			if id, ok := nameIDs[name]; ok {
				df[id]++
			}
		}
	}
	// A name more than a tenth of the files mention is a stop word
	// (keywords, English, len and Error alike): it names no one place.
	stopShare := max(len(mentions)/10, 10)
	g.mentions = make([][]mention, len(g.Files))
	for p, counts := range mentions {
		from := int32(g.index[p])
		var ms []mention
		for name, n := range counts {
			id, ok := nameIDs[name]
			if !ok || df[id] > stopShare {
				continue
			}
			ds := g.definers[id]
			if len(ds) == 1 && ds[0] == from {
				continue
			}
			w := math.Sqrt(float64(n)) * math.Log(float64(len(mentions)+1)/float64(df[id]))
			if len(ds) > 5 {
				w *= 0.1
			}
			if strings.HasPrefix(name, "_") {
				w *= 0.1
			}
			if distinctive(name) {
				w *= 10
			}
			ms = append(ms, mention{id, w})
		}
		slices.SortFunc(ms, func(a, b mention) int { return int(a.name - b.name) })
		g.mentions[from] = ms
	}
	return g
}

// distinctive reports a long camelCase or snake_case name, which aider
// weighs tenfold: it is a program's name, never an English word.
func distinctive(name string) bool {
	if len(name) < 8 {
		return false
	}
	var upper, lower bool
	for _, c := range name {
		upper = upper || unicode.IsUpper(c)
		lower = lower || unicode.IsLower(c)
	}
	return upper && lower || strings.Contains(strings.Trim(name, "_"), "_")
}

func cmpDef(a, b Def) int {
	if c := strings.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	if a.Line != b.Line {
		return a.Line - b.Line
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	// The order is total, so that it does not depend on the order the
	// definitions came in (the index's, or a cache's).
	return strings.Compare(a.Text, b.Text)
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
	for i, ms := range g.mentions {
		for _, m := range ms {
			out[i] += m.w
		}
	}
	rank := g.pagerank(out, restart)
	// A definition's score is the rank that flows to it: each mention's
	// share of its file's rank, split among the name's definers.
	nameScore := make([]float64, len(g.names))
	for i, ms := range g.mentions {
		for _, m := range ms {
			nameScore[m.name] += rank[i] * m.w / out[i]
		}
	}
	// Defs are in path, line and name order: the index breaks ties.
	order := make([]int32, len(g.Defs))
	score := make([]float64, len(g.Defs))
	for i, id := range g.defName {
		order[i] = int32(i)
		score[i] = nameScore[id] / float64(len(g.definers[id]))
	}
	slices.SortFunc(order, func(a, b int32) int {
		if score[a] != score[b] {
			return cmpFloat(score[b], score[a])
		}
		fa, fb := rank[g.index[g.Defs[a].Path]], rank[g.index[g.Defs[b].Path]]
		if fa != fb {
			return cmpFloat(fb, fa)
		}
		return int(a - b)
	})
	res := make([]Ranked, len(order))
	for i, d := range order {
		res[i] = Ranked{g.Defs[d], score[d], rank[g.index[g.Defs[d].Path]]}
	}
	return res
}

func cmpFloat(a, b float64) int {
	if a < b {
		return -1
	}
	return 1
}

// pagerank is the power iteration with damping 0.85; a file that
// mentions nothing gives its rank back through the restart vector.
func (g *Graph) pagerank(out, restart []float64) []float64 {
	const damping, rounds, tolerance = 0.85, 100, 1e-7
	n := len(g.Files)
	rank := slices.Clone(restart)
	next := make([]float64, n)
	flow := make([]float64, len(g.names))
	for range rounds {
		var dangling float64
		clear(next)
		clear(flow)
		for i, ms := range g.mentions {
			if out[i] == 0 {
				dangling += rank[i]
				continue
			}
			for _, m := range ms {
				flow[m.name] += rank[i] * m.w / out[i]
			}
		}
		for id, ds := range g.definers {
			share := damping * flow[id] / float64(len(ds))
			for _, f := range ds {
				next[f] += share
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
	return lo, text
}
