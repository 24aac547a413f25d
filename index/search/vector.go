package search

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/dossierhq/dossier/index/embed"
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

// vector ranks chunks by cosine similarity with the query: an exact scan
// over every chunk's int8 vector, split across the cores. The similarity of
// every chunk in want (other retrievers' candidates) is also returned, so
// fusion can weigh each candidate by all its evidence.
func (v *view) vector(q string, f filter, limit int, want []hit) ([]hit, map[key]float64, error) {
	qv, ok := v.queryVector(q)
	if !ok {
		return nil, nil, nil
	}
	wanted := map[string][]int{}
	for _, h := range want {
		wanted[h.key.path] = append(wanted[h.key.path], h.key.ord)
	}
	qi, qscale := embed.Quantize(nil, qv)
	type file struct {
		path string
		set  VectorSet
		keep func(ord int) bool
	}
	var files []file
	var mismatch string
	err := v.tx.VectorRecords(func(p string, rec []byte) error {
		if !f.path(p) {
			return nil
		}
		set, err := DecodeVectors(rec)
		if err != nil {
			return fmt.Errorf("vectors of %s: %w", p, err)
		}
		if set.Model != embed.BuiltinModel || set.Dims != len(qi) {
			mismatch = set.Model
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
	if len(files) == 0 && mismatch != "" {
		return nil, nil, fmt.Errorf("the index's vectors come from model %q, this query from %q: search with the same embedder or re-index with `dossier index --embedder`", mismatch, embed.BuiltinModel)
	}
	workers := min(runtime.GOMAXPROCS(0), max(1, len(files)/64))
	heaps := make([]hitHeap, workers)
	found := make([][]hit, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			h := &heaps[w]
			for i := w; i < len(files); i += workers {
				fl := files[i]
				for j := 0; j < fl.set.Len(); j++ {
					if fl.keep != nil && !fl.keep(j) {
						continue
					}
					s := score(qi, qscale, fl.set.Raw(j))
					if h.Len() < limit {
						heap.Push(h, hit{key: key{fl.path, j}, score: s})
					} else if s > (*h)[0].score {
						(*h)[0] = hit{key: key{fl.path, j}, score: s}
						heap.Fix(h, 0)
					}
				}
				for _, j := range wanted[fl.path] {
					if j < fl.set.Len() {
						found[w] = append(found[w], hit{key: key{fl.path, j}, score: score(qi, qscale, fl.set.Raw(j))})
					}
				}
			}
		}(w)
	}
	wg.Wait()
	var all []hit
	for _, h := range heaps {
		all = append(all, h...)
	}
	hits := top(all, limit)
	// Hashed features collide: below minCosine a match is noise.
	for len(hits) > 0 && hits[len(hits)-1].score < minCosine {
		hits = hits[:len(hits)-1]
	}
	cos := map[key]float64{}
	for _, hs := range found {
		for _, h := range hs {
			if h.score >= minCosine {
				cos[h.key] = h.score
			}
		}
	}
	return hits, cos, nil
}

// minCosine is the similarity below which two unrelated texts land by
// chance (random hashed vectors of this size reach about 0.1).
const minCosine = 0.15

// score is the cosine of a quantized query and a stored vector (4-byte
// scale, then int8 components).
func score(q []int8, qscale float32, raw []byte) float64 {
	scale := math.Float32frombits(binary.LittleEndian.Uint32(raw))
	return float64(dot(q, raw[4:])) * float64(scale) * float64(qscale)
}

// dot is the int32 dot product of a query and a stored vector.
func dot(q []int8, d []byte) int32 {
	d = d[:len(q)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += int32(q[i]) * int32(int8(d[i]))
		s1 += int32(q[i+1]) * int32(int8(d[i+1]))
		s2 += int32(q[i+2]) * int32(int8(d[i+2]))
		s3 += int32(q[i+3]) * int32(int8(d[i+3]))
	}
	for ; i < len(q); i++ {
		s0 += int32(q[i]) * int32(int8(d[i]))
	}
	return s0 + s1 + s2 + s3
}

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
