package repomap

import (
	"fmt"
	"strings"
	"testing"
)

// chain is a graph of n files, each in a directory of its own and
// calling the next file's function bare.
func chain(n int) *Graph {
	files := map[string]*File{}
	for i := range n {
		p, name := fmt.Sprintf("d%02d/f.go", i), fmt.Sprintf("DoThing%02d", i)
		files[p] = &File{Defs: []Def{{Name: name, Line: 3, Text: "func " + name + "(x int) int"}},
			Refs: []Ref{{Name: fmt.Sprintf("DoThing%02d", (i+1)%n), N: 1}}}
	}
	return NewGraph(files)
}

// words counts whitespace-separated words: a tokenizer that is not linear
// in bytes, as a BPE is not.
func words(s string) int { return len(strings.Fields(s)) }

func TestFitIsTheLargestThatFits(t *testing.T) {
	ranked := chain(30).Rank(nil)
	for _, budget := range []int{1, 7, 20, 33, 100, 10000} {
		n, text := Fit(ranked, budget, words)
		if words(text) > budget {
			t.Errorf("budget %d: %d words", budget, words(text))
		}
		if n < len(ranked) && words(Render(ranked, n+1)) <= budget {
			t.Errorf("budget %d: %d entries fit, yet %d were taken", budget, n+1, n)
		}
		if text != Render(ranked, n) {
			t.Errorf("budget %d: the text is not the rendering of its %d entries", budget, n)
		}
	}
}

func TestRankRestartsAtTheFocus(t *testing.T) {
	g := chain(30)
	plain, again := Render(g.Rank(nil), 30), Render(chain(30).Rank(nil), 30)
	if plain != again {
		t.Fatalf("two rankings of the same graph differ:\n%s\n%s", plain, again)
	}
	// d10 calls DoThing11: focused on d10, d11's definition leads.
	if top := g.Rank(map[string]float64{"d10/f.go": 1})[0]; top.Path != "d11/f.go" {
		t.Fatalf("focus on d10/f.go: top is %s, want d11/f.go", top.Path)
	}
	if g.Rank(map[string]float64{"gone.go": 1})[0] != g.Rank(nil)[0] {
		t.Fatal("a focus outside the graph is not plain PageRank")
	}
}
