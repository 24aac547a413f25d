package search

import (
	"fmt"
	"slices"
	"testing"
)

// TestHeapKeepsTiesByKey proves which of tied hits a bounded heap keeps
// does not depend on the order they come in (an incremental index offers
// its dirty files' chunks after the snapshot's).
func TestHeapKeepsTiesByKey(t *testing.T) {
	var hits []hit
	for i := range 20 {
		hits = append(hits, hit{key: key{fmt.Sprintf("p%02d", i), 0}, score: float64(1 + i%2)})
	}
	kept := func(in []hit) []key {
		var h hitHeap
		for _, x := range in {
			h.offer(x, 12)
		}
		var out []key
		for _, x := range top(h, 12) {
			out = append(out, x.key)
		}
		return out
	}
	want := kept(hits)
	slices.Reverse(hits)
	if got := kept(hits); !slices.Equal(got, want) {
		t.Errorf("reversed input kept %v, want %v", got, want)
	}
}
