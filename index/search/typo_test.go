package search_test

import (
	"testing"

	"github.com/dossierhq/dossier/index/search"
)

// TestSymbolTyposFindTheSymbol proves a typo of a symbol's name (letters
// dropped, swapped or changed) finds it above the default threshold in
// symbol mode and in hybrid mode (the text finds no such word), while
// letters that spell no name find nothing.
func TestSymbolTyposFindTheSymbol(t *testing.T) {
	root := goTree(t, map[string]string{"algo/algo.go": `package algo

// FuzzyMatch scores text against pattern, rewarding matches at word starts.
func FuzzyMatch(text, pattern string) int { return len(text) - len(pattern) }

// FuzzyMatchV2 is FuzzyMatch with a full table.
func FuzzyMatchV2(text, pattern string) int { return FuzzyMatch(text, pattern) }
`})
	for _, mode := range []search.Mode{search.Symbol, search.Hybrid} {
		typos(t, root, mode)
	}
}

func typos(t *testing.T, root string, mode search.Mode) {
	t.Helper()
	for q, want := range map[string]string{
		"fuzmatch":    "FuzzyMatch", // two letters dropped
		"fuzzymacth":  "FuzzyMatch", // two swapped
		"fuzzymatxh":  "FuzzyMatch", // one changed
		"queryescpae": "QueryEscape",
		"newreplacr":  "NewReplacer",
	} {
		resp := query(t, root, search.Query{Text: q, Mode: mode, MinScore: search.DefaultMinScore})
		if len(resp.Results) == 0 {
			t.Errorf("%s %q: no results, near misses %+v", mode, q, resp.Debug.NearMisses)
			continue
		}
		if r := resp.Results[0]; r.Symbol != want {
			t.Errorf("%s %q: first is %s (%.3f), want %s", mode, q, r.Symbol, r.Score, want)
		}
	}
	for _, q := range []string{"xyzzyplugh", "qwvzzkj", "blorptastic", "frobnicator"} {
		resp := query(t, root, search.Query{Text: q, Mode: mode, MinScore: search.DefaultMinScore})
		if len(resp.Results) != 0 {
			t.Errorf("%s %q: %d results, the first %s (%.3f)", mode, q, len(resp.Results), resp.Results[0].Symbol, resp.Results[0].Score)
		}
	}
}
