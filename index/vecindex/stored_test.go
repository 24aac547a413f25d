package vecindex

import (
	"cmp"
	"fmt"
	"slices"
	"testing"
)

// storedSearch is the search dossier runs over stored vectors: the int8
// estimate of every entry, then the best Candidates(k) rescored.
func storedSearch(entries, resid []byte, dims int, q []float32, k int) []int {
	pq := NewQuery(q)
	size := EntrySize(dims)
	n := len(entries) / size
	est := make([]Hit, n)
	for i := range n {
		est[i] = Hit{i, pq.Estimate(entries[i*size : (i+1)*size])}
	}
	byScore := func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	}
	slices.SortFunc(est, byScore)
	cand := est[:min(Candidates(k), n)]
	for i := range cand {
		id := cand[i].ID
		cand[i].Score = pq.Refine(entries[id*size:(id+1)*size], resid[id*dims:(id+1)*dims])
	}
	slices.SortFunc(cand, byScore)
	return hitIDs(cand[:min(k, len(cand))])
}

// TestStoredRecall proves the spec's recall@10 >= 0.99 against exact
// float64 search on 20k clustered vectors for the path dossier ships:
// vectors encoded as the store keeps them and searched in place.
func TestStoredRecall(t *testing.T) {
	for _, dims := range []int{256, 384} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			ds := newDataset(int64(dims)+7, 20000, 200, dims)
			exact := groundTruth(ds, 10)
			var entries, resid []byte
			for _, v := range ds.data {
				entries, resid = Encode(entries, resid, v)
			}
			if len(entries) != len(ds.data)*EntrySize(dims) || len(resid) != len(ds.data)*dims {
				t.Fatalf("encoded %d entry bytes and %d residual bytes for %d vectors", len(entries), len(resid), len(ds.data))
			}
			got := make([][]int, len(ds.queries))
			for i, q := range ds.queries {
				got[i] = storedSearch(entries, resid, dims, q, 10)
			}
			r := recall(exact, got)
			t.Logf("stored recall@10 over %d queries, %d×%d: %.4f", len(ds.queries), len(ds.data), dims, r)
			if r < 0.99 {
				t.Errorf("recall@10 = %.4f, want >= 0.99", r)
			}
		})
	}
}

// TestStoredMatchesRefined checks that the stored form scores exactly as
// the in-memory indexes do.
func TestStoredMatchesRefined(t *testing.T) {
	ds := newDataset(5, 300, 5, 100)
	r := NewRefined(100, len(ds.data))
	f := newFlat(ds.data)
	var entries, resid []byte
	for _, v := range ds.data {
		r.Add(v)
		entries, resid = Encode(entries, resid, v)
	}
	size := EntrySize(100)
	for _, q := range ds.queries {
		pq := NewQuery(q)
		ids := make([]int, len(ds.data))
		for i := range ids {
			ids[i] = i
		}
		want, wantEst := r.SearchScores(q, ids), f.SearchScores(q, ids)
		for i := range ids {
			e := entries[i*size : (i+1)*size]
			if got := pq.Refine(e, resid[i*100:(i+1)*100]); got != want[i] {
				t.Fatalf("vector %d: stored refine %v, Refined %v", i, got, want[i])
			}
			if got := pq.Estimate(e); got != wantEst[i] {
				t.Fatalf("vector %d: stored estimate %v, Flat %v", i, got, wantEst[i])
			}
		}
	}
}
