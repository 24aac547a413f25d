package vecindex

import (
	"slices"
	"testing"
)

func newRefined(data [][]float32) *Refined {
	r := NewRefined(len(data[0]), len(data))
	for _, v := range data {
		r.Add(v)
	}
	return r
}

// TestRefinedAddQuantized: the encoded path gives the same index as Add,
// and its int8 half is exactly what Flat stores.
func TestRefinedAddQuantized(t *testing.T) {
	ds := newDataset(8, 500, 10, 40)
	byAdd := newRefined(ds.data)
	byEnc := NewRefined(40, 0)
	for _, v := range ds.data {
		byEnc.AddQuantized(QuantizeRefined(v))
	}
	flat := newFlat(ds.data)
	if !slices.Equal(byAdd.resid, byEnc.resid) || !slices.Equal(byAdd.flat.comps, flat.comps) {
		t.Fatal("encoded and added vectors differ")
	}
	for _, q := range ds.queries {
		if a, b := byAdd.Search(q, 10, nil), byEnc.Search(q, 10, nil); !slices.Equal(a, b) {
			t.Fatalf("searches differ: %v, %v", a, b)
		}
	}
}

// TestRefinedScores: scores are the float cosine to within 16-bit
// precision, Search and SearchScores agree, and hits are ordered.
func TestRefinedScores(t *testing.T) {
	ds := newDataset(9, 3000, 10, 384)
	r := newRefined(ds.data)
	for _, q := range ds.queries {
		hits := r.Search(q, 15, func(id int) bool { return id%3 != 0 })
		scores := r.SearchScores(q, hitIDs(hits))
		for i, h := range hits {
			var want float64
			for j, x := range ds.data[h.ID] {
				want += float64(x) * float64(q[j])
			}
			if d := float64(h.Score) - want; d > 1e-4 || d < -1e-4 {
				t.Fatalf("vector %d: score %.6f, cosine %.6f", h.ID, h.Score, want)
			}
			if h.ID%3 == 0 {
				t.Fatalf("vector %d kept", h.ID)
			}
			if scores[i] != h.Score {
				t.Fatalf("vector %d: SearchScores %v, Search %v", h.ID, scores[i], h.Score)
			}
			if i > 0 && worse(hits[i-1], h) {
				t.Fatalf("hits %d and %d out of order", i-1, i)
			}
		}
	}
}

func TestRefinedEdges(t *testing.T) {
	r := NewRefined(4, 0)
	q := []float32{1, 2, 3, 4}
	if got := r.Search(q, 3, nil); got != nil {
		t.Errorf("empty index: %v", got)
	}
	r.Add([]float32{0, 0, 0, 1})
	r.Add([]float32{0, 0, 0, 0})
	r.Add([]float32{1, 0, 0, 0})
	if got := r.Search(q, 0, nil); got != nil {
		t.Errorf("k=0: %v", got)
	}
	if got := r.Search(q[:3], 3, nil); got != nil {
		t.Errorf("short query: %v", got)
	}
	if got := r.SearchScores(q[:3], []int{0}); got != nil {
		t.Errorf("short query scores: %v", got)
	}
	if ids := hitIDs(r.Search(q, 10, nil)); !slices.Equal(ids, []int{0, 2, 1}) {
		t.Errorf("k > n: got %v, want [0 2 1]", ids)
	}
	if r.Len() != 3 || r.Dims() != 4 {
		t.Errorf("Len, Dims = %d, %d", r.Len(), r.Dims())
	}
}
