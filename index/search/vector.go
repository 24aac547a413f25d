package search

import (
	"container/heap"
	"fmt"
	"runtime"
	"sync"

	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/index/vecindex"
)

// queryVector embeds a query with the builtin embedder, weighting each
// term by its IDF in the index, so rare words steer the vector.
func (v *view) queryVector(q string) ([]float32, bool) {
	qt := v.e.tok.Terms(q)
	if len(qt) == 0 {
		return nil, false
	}
	st := v.stats(qt)
	vec := make([]float32, embed.BuiltinDims)
	for t, n := range qt {
		v.e.emb.Add(vec, t, float32(st.idf(t))*embed.TermWeight(t, float32(n)))
	}
	embed.Normalize(vec)
	return vec, true
}

// vector ranks chunks by cosine similarity with the query vector qv, whose
// model is model: an exact scan over every chunk's stored vector, straight
// from the index file, split across the cores, whose best int8 estimates
// are then rescored from their residuals (vecindex). The similarity of
// every chunk in want (other retrievers' candidates) is also returned, so
// fusion can weigh each candidate by all its evidence.
func (v *view) vector(qv []float32, model string, f filter, limit int, want []hit) ([]hit, map[key]float64, error) {
	wanted := map[string][]int{}
	for _, h := range want {
		wanted[h.key.path] = append(wanted[h.key.path], h.key.ord)
	}
	type file struct {
		path string
		set  VectorSet
		keep func(ord int) bool
	}
	var files []file
	var mismatch VectorSet
	err := v.tx.VectorRecords(func(p string, rec []byte) error {
		if !f.path(p) {
			return nil
		}
		set, err := DecodeVectors(rec)
		if err != nil {
			return fmt.Errorf("vectors of %s: %w", p, err)
		}
		if set.Model != model || set.Dims != len(qv) {
			mismatch = set
			return nil
		}
		keep, err := v.kindFilter(p, f)
		if err != nil {
			return err
		}
		files = append(files, file{p, set, keep})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(files) == 0 && mismatch.Model != "" {
		return nil, nil, fmt.Errorf("the index's vectors come from %q (%d dimensions) but this query was embedded with %q (%d): search with the embedder the index was built with, or re-index with `dossier index --embedder`",
			mismatch.Model, mismatch.Dims, model, len(qv))
	}
	q := vecindex.NewQuery(qv)
	ncand := vecindex.Candidates(limit)
	workers := min(runtime.GOMAXPROCS(0), max(1, len(files)/64))
	heaps := make([]hitHeap, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			h := &heaps[w]
			for i := w; i < len(files); i += workers {
				fl := &files[i]
				for j := range fl.set.Len() {
					if fl.keep != nil && !fl.keep(j) {
						continue
					}
					s := float64(q.Estimate(fl.set.Entry(j)))
					if h.Len() < ncand {
						heap.Push(h, hit{key: key{fl.path, j}, score: s, file: i})
					} else if s > (*h)[0].score {
						(*h)[0] = hit{key: key{fl.path, j}, score: s, file: i}
						heap.Fix(h, 0)
					}
				}
			}
		})
	}
	wg.Wait()
	var all []hit
	for _, h := range heaps {
		all = append(all, h...)
	}
	cands := top(all, ncand)
	for i := range cands {
		set := files[cands[i].file].set
		cands[i].score = float64(q.Refine(set.Entry(cands[i].key.ord), set.Resid(cands[i].key.ord)))
	}
	hits := top(cands, limit)
	// Hashed features collide: below minCosine a match is noise.
	for len(hits) > 0 && hits[len(hits)-1].score < minCosine {
		hits = hits[:len(hits)-1]
	}
	cos := map[key]float64{}
	for _, fl := range files {
		for _, j := range wanted[fl.path] {
			if j < fl.set.Len() {
				if s := float64(q.Refine(fl.set.Entry(j), fl.set.Resid(j))); s >= minCosine {
					cos[key{fl.path, j}] = s
				}
			}
		}
	}
	return hits, cos, nil
}

// minCosine is the similarity below which two unrelated texts land by
// chance (random hashed vectors of this size reach about 0.1).
const minCosine = 0.15

// hitHeap is a min-heap of hits by score.
type hitHeap []hit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return h[i].score < h[j].score }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
