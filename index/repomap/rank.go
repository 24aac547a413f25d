// Package repomap ranks a repository's definitions by its reference graph,
// as aider ranks its repo map: a file that refers to a name another file
// defines (a call or mention index/xref reads from its parse, resolved
// through the file's imports and package: resolve.go) points at that
// file, PageRank runs over those edges with a
// restart vector (plain PageRank when it is empty, personalised to the
// files a flow holds otherwise), and each file's rank flows along its
// edges to the definitions it reaches. Everything here is pure: a Graph
// in, a ranking out, the same every time for the same input.
//
// What each file gives the graph (its definitions and references, a File)
// is derived at index time and stored per file (record.go), so a process
// builds the graph from one read of those records, without a text; the
// graph is resolved when it is built, so a changed file changes its own
// record only.
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
// define, and per file the targets it refers to. A target is a name and
// the files that may define what a reference to it means (the package an
// import names, the referring file's own directory, or anywhere), each
// taking an equal share; a reference is kept as file → target → definers,
// so a name defined in a thousand files (String) costs one entry per
// referring file, not a thousand.
type Graph struct {
	Files []string
	Defs  []Def
	// mentions[i] are file i's references, sorted by target.
	mentions [][]mention
	// definers[t] are the files target t reaches, in path order, and
	// tName[t] the name it reaches them by.
	definers [][]int32
	tName    []int32
	names    []string
	// defName[i] is the name id of Defs[i], defFile[i] its file's.
	defName, defFile []int32
	index            map[string]int
}

type mention struct {
	target int32
	w      float64
}

// NewGraph builds the graph from every file's record, by path. A
// reference through an import reaches the name's definitions in the files
// the import's spec names (a directory or module path ending as the spec
// does, relative to the file for ./x); one to nothing there is to a
// package outside the index, and no edge. A bare reference reaches the
// name in the referring file's directory (its package) when that defines
// it, else every definition of it. References nobody's definition
// answers, and a file's references to names only it defines, are no
// edges. A name defined in many files says little about which one is
// meant, so its references weigh a tenth, as aider weighs them; so do
// names starting with '_', while a long camelCase or snake_case name
// weighs tenfold; and a name most files refer to weighs by its rarity.
func NewGraph(files map[string]*File) *Graph {
	g := &Graph{index: map[string]int{}}
	ndefs := 0
	for p, f := range files {
		g.Files = append(g.Files, p)
		ndefs += len(f.Defs)
	}
	slices.Sort(g.Files)
	g.Defs = make([]Def, 0, ndefs)
	for i, p := range g.Files {
		g.index[p] = i
		for _, d := range files[p].Defs {
			d.Path = p
			g.Defs = append(g.Defs, d)
		}
	}
	slices.SortFunc(g.Defs, cmpDef)
	nameIDs := map[string]int32{}
	var nameDefiners [][]int32
	for _, d := range g.Defs {
		id, ok := nameIDs[d.Name]
		if !ok {
			id = int32(len(g.names))
			nameIDs[d.Name] = id
			g.names = append(g.names, d.Name)
			nameDefiners = append(nameDefiners, nil)
		}
		// Defs are in path order: a repeated definer is the last one.
		f := int32(g.index[d.Path])
		g.defName, g.defFile = append(g.defName, id), append(g.defFile, f)
		if ds := nameDefiners[id]; len(ds) == 0 || ds[len(ds)-1] != f {
			nameDefiners[id] = append(ds, f)
		}
	}
	r := newResolver(g, nameDefiners)
	type edge struct {
		target int32
		n      int
	}
	edges := make([][]edge, len(g.Files))
	// A word most files refer to (len, Error, Fatal) tells nothing:
	// weigh references by the name's inverse document frequency.
	df := make([]int, len(g.names))
	referring := 0
	for i, p := range g.Files {
		seen := map[int32]bool{}
		for _, ref := range files[p].Refs {
			id, ok := nameIDs[ref.Name]
			if !ok {
				continue
			}
			t := r.target(int32(i), id, ref.Scope)
			if t < 0 {
				continue
			}
			edges[i] = append(edges[i], edge{t, ref.N})
			if !seen[id] {
				seen[id] = true
				df[id]++
			}
		}
		if len(edges[i]) > 0 {
			referring++
		}
	}
	g.definers, g.tName = r.definers, r.tName
	// A name more than a tenth of the files refer to is a stop word: it
	// names no one place.
	stopShare := max(referring/10, 10)
	g.mentions = make([][]mention, len(g.Files))
	for from, es := range edges {
		var ms []mention
		for _, e := range es {
			id := g.tName[e.target]
			ds := g.definers[e.target]
			if df[id] > stopShare || len(ds) == 1 && ds[0] == int32(from) {
				continue
			}
			name := g.names[id]
			w := math.Sqrt(float64(e.n)) * math.Log(float64(referring+1)/float64(df[id]))
			if len(ds) > 5 {
				w *= 0.1
			}
			if strings.HasPrefix(name, "_") {
				w *= 0.1
			}
			if distinctive(name) {
				w *= 10
			}
			ms = append(ms, mention{e.target, w})
		}
		g.mentions[from] = mergeMentions(ms)
	}
	return g
}

// mergeMentions sorts ms by target and adds up the weights of a target
// reached twice (a name in two scopes that resolve alike).
func mergeMentions(ms []mention) []mention {
	slices.SortFunc(ms, func(a, b mention) int { return int(a.target - b.target) })
	out := ms[:0]
	for _, m := range ms {
		if n := len(out); n > 0 && out[n-1].target == m.target {
			out[n-1].w += m.w
			continue
		}
		out = append(out, m)
	}
	return out
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
	for i, ms := range g.mentions {
		for _, m := range ms {
			out[i] += m.w
		}
	}
	rank := g.pagerank(out, restart)
	// A definition's score is the rank that flows to it: each mention's
	// share of its file's rank, split among its target's definers.
	targetScore := make([]float64, len(g.definers))
	for i, ms := range g.mentions {
		for _, m := range ms {
			targetScore[m.target] += rank[i] * m.w / out[i]
		}
	}
	byFileName := map[int64]float64{}
	for t, ds := range g.definers {
		if targetScore[t] == 0 {
			continue
		}
		share := targetScore[t] / float64(len(ds))
		for _, f := range ds {
			byFileName[int64(f)<<32|int64(g.tName[t])] += share
		}
	}
	// Defs are in path, line and name order: the index breaks ties.
	order := make([]int32, len(g.Defs))
	score := make([]float64, len(g.Defs))
	for i, id := range g.defName {
		order[i] = int32(i)
		score[i] = byFileName[int64(g.defFile[i])<<32|int64(id)]
	}
	slices.SortFunc(order, func(a, b int32) int {
		if score[a] != score[b] {
			return cmpFloat(score[b], score[a])
		}
		fa, fb := rank[g.defFile[a]], rank[g.defFile[b]]
		if fa != fb {
			return cmpFloat(fb, fa)
		}
		return int(a - b)
	})
	res := make([]Ranked, len(order))
	for i, d := range order {
		res[i] = Ranked{g.Defs[d], score[d], rank[g.defFile[d]]}
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
	flow := make([]float64, len(g.definers))
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
				flow[m.target] += rank[i] * m.w / out[i]
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
