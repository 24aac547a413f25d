package search

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestDocHeapKeepsWhatHitHeapKeeps proves the vector scan's heap of
// documents by path number keeps the hits a hitHeap of their paths keeps,
// ties included (equal scores, then path, then position), in a path table
// in path order and in one that is not, and that its best few are the
// best few of those hits.
func TestDocHeapKeepsWhatHitHeapKeeps(t *testing.T) {
	for _, paths := range [][]string{
		{"a.go", "b/c.go", "b/d.go", "e.go", "f/g/h.go"},
		{"z.go", "b/d.go", "a.go", "m.go", "b/c.go"},
	} {
		pt, ok := newPathTable([]byte(strings.Join(paths, pathSep)), len(paths))
		if !ok {
			t.Fatalf("%q: not a table", paths)
		}
		r := rand.New(rand.NewPCG(1, 2))
		for _, limit := range []int{1, 3, 7, 40} {
			dh := docHeap{paths: &pt}
			var hh hitHeap
			for range 200 {
				x := docHit{score: float64(r.IntN(8)) / 8, path: uint32(r.IntN(len(paths))), ord: uint32(r.IntN(4))}
				hx := hit{key: key{paths[x.path], int(x.ord)}, score: x.score}
				dup := false
				for _, y := range hh {
					dup = dup || y.key == hx.key
				}
				if dup { // a document is offered once
					continue
				}
				if got, want := dh.offer(x, limit), hh.offer(hx, limit); got != want {
					t.Fatalf("%q limit %d: offer %+v took %v, hitHeap %v", paths, limit, x, got, want)
				}
			}
			got, want := top(dh.hits(nil), limit), top(append([]hit(nil), hh...), limit)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%q limit %d:\n got %+v\nwant %+v", paths, limit, got, want)
			}
			// The best few of them, as hits, are the best few of the hits.
			few := max(limit/2, 1)
			if got, want := dh.best(few).hits(nil), top(want, few); !reflect.DeepEqual(top(got, few), want) || len(got) != len(want) {
				t.Errorf("%q best %d:\n got %+v\nwant %+v", paths, few, got, want)
			}
		}
	}
}
