package repomap

import (
	"fmt"
	"strings"
	"testing"
)

// chain is a graph of n files, each mentioning the next file's function.
func chain(n int) *Graph {
	var defs []Def
	mentions := map[string]map[string]int{}
	for i := range n {
		p, name := fmt.Sprintf("f%02d.go", i), fmt.Sprintf("DoThing%02d", i)
		defs = append(defs, Def{Path: p, Name: name, Line: 3, Text: "func " + name + "(x int) int"})
		mentions[p] = map[string]int{fmt.Sprintf("DoThing%02d", (i+1)%n): 1}
	}
	return NewGraph(defs, mentions)
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
	// f10 mentions DoThing11: focused on f10, f11's definition leads.
	if top := g.Rank(map[string]float64{"f10.go": 1})[0]; top.Path != "f11.go" {
		t.Fatalf("focus on f10.go: top is %s, want f11.go", top.Path)
	}
	if g.Rank(map[string]float64{"gone.go": 1})[0] != g.Rank(nil)[0] {
		t.Fatal("a focus outside the graph is not plain PageRank")
	}
}
