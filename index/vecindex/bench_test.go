package vecindex

import (
	"cmp"
	"fmt"
	"math/rand"
	randv2 "math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/coder/hnsw"
)

// cached builds a benchmark fixture once per process: `-benchtime 3x`
// calls a benchmark more than once, and the data and graphs are the slow
// part.
var (
	cacheMu sync.Mutex
	cache   = map[string]any{}
)

func cached[T any](key string, build func() T) T {
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if v, ok := cache[key]; ok {
		return v.(T)
	}
	v := build()
	cache[key] = v
	return v
}

func benchData(n, dims, nq int) dataset {
	return cached(fmt.Sprint("data", n, dims, nq), func() dataset {
		return newDataset(int64(dims), n, nq, dims)
	})
}

// BenchmarkFlatSearch times one top-10 query over a large index.
func BenchmarkFlatSearch(b *testing.B) {
	for _, size := range []struct{ n, dims int }{{200000, 256}, {100000, 384}} {
		b.Run(fmt.Sprintf("%dx%d", size.n, size.dims), func(b *testing.B) {
			ds := benchData(size.n, size.dims, 64)
			f := cached(fmt.Sprint("flat", size.n, size.dims), func() *Flat { return newFlat(ds.data) })
			b.ResetTimer()
			for i := range b.N {
				f.Search(ds.queries[i%len(ds.queries)], 10, nil)
			}
		})
	}
}

// BenchmarkDot times the kernel alone on one core over 10k vectors;
// ns/elem is the cost per component.
func BenchmarkDot(b *testing.B) {
	for _, dims := range []int{256, 384} {
		b.Run(fmt.Sprint(dims), func(b *testing.B) {
			ds := benchData(10000, dims, 1)
			f := newFlat(ds.data)
			q := prepare(ds.queries[0])
			b.ResetTimer()
			var sink int64
			for range b.N {
				for id := range f.Len() {
					sink += q.dot(f.vec(id), f.sums[id])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*f.Len()*dims), "ns/elem")
			if sink == 1 {
				b.Log(sink)
			}
		})
	}
}

// BenchmarkColumnScan estimates every one of 8192 stored vectors (one
// block of the search snapshot's table) for a query of nz non-zero
// components, by column, against the row scan of BenchmarkDot over the
// same vectors ("rows"). ns/vec is per vector estimated.
func BenchmarkColumnScan(b *testing.B) {
	const dims, n = 256, 8192
	ds := benchData(n, dims, 1)
	var entries, resid []byte
	for _, v := range ds.data {
		entries, resid = Encode(entries, resid, v)
	}
	_, cols := columnsOf(entries, dims)
	r := randv2.New(randv2.NewPCG(1, 2))
	for _, nz := range []int{16, 32, 64, dims} {
		qv := sparseQuery(r, dims, nz)
		if nz == dims {
			qv = ds.queries[0]
		}
		q := NewQuery(qv)
		cq := q.Columns()
		read := queryColumns(cq, cols)
		acc := make([]uint64, AccSize(n))
		b.Run(fmt.Sprintf("nz=%d", len(cq.Dims)), func(b *testing.B) {
			var sink int64
			for b.Loop() {
				clear(acc)
				cq.Accumulate(acc, read)
				for i := range n {
					sink += cq.Dot(acc, i)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/vec")
			if sink == 1 {
				b.Log(sink)
			}
		})
	}
	b.Run("rows", func(b *testing.B) {
		q := NewQuery(ds.queries[0])
		size := EntrySize(dims)
		var sink float32
		for b.Loop() {
			for i := range n {
				sink += q.Estimate(entries[i*size : (i+1)*size])
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/vec")
		if sink == 1 {
			b.Log(sink)
		}
	})
}

// BenchmarkRefinedSearch is BenchmarkFlatSearch with residual rescoring.
func BenchmarkRefinedSearch(b *testing.B) {
	for _, size := range []struct{ n, dims int }{{200000, 256}, {100000, 384}} {
		b.Run(fmt.Sprintf("%dx%d", size.n, size.dims), func(b *testing.B) {
			ds := benchData(size.n, size.dims, 64)
			r := cached(fmt.Sprint("refined", size.n, size.dims), func() *Refined {
				r := NewRefined(size.dims, len(ds.data))
				for _, v := range ds.data {
					r.Add(v)
				}
				return r
			})
			b.ResetTimer()
			for i := range b.N {
				r.Search(ds.queries[i%len(ds.queries)], 10, nil)
			}
		})
	}
}

// hnswConfig is one coder/hnsw setting: M and EfSearch as the graph is
// built, and how many results a query fetches before the exact top 10 of
// them are kept (over-fetching is the usual cure for a graph that stops
// early).
type hnswConfig struct {
	m, ef, fetch int
	long         bool // skipped with -short: the build takes a minute
}

// BenchmarkHNSW measures github.com/coder/hnsw v0.6.1 against exact search
// on 20k clustered vectors: recall@10, ns per query and build seconds, with
// Flat and Refined on the same data and queries for comparison.
func BenchmarkHNSW(b *testing.B) {
	configs := []hnswConfig{
		{m: 16, ef: 20, fetch: 10}, // the library's defaults
		{m: 32, ef: 100, fetch: 10},
		{m: 32, ef: 100, fetch: 200},
		{m: 64, ef: 200, fetch: 10, long: true},
	}
	for _, dims := range []int{384, 256} {
		ds := benchData(20000, dims, 100)
		exact := cached(fmt.Sprint("exact", dims), func() [][]int { return groundTruth(ds, 10) })
		b.Run(fmt.Sprintf("%d/flat", dims), func(b *testing.B) {
			f := cached(fmt.Sprint("flat", 20000, dims), func() *Flat { return newFlat(ds.data) })
			benchRecall(b, ds, exact, func(q []float32) []int { return hitIDs(f.Search(q, 10, nil)) })
		})
		b.Run(fmt.Sprintf("%d/refined", dims), func(b *testing.B) {
			r := cached(fmt.Sprint("refined", 20000, dims), func() *Refined {
				r := NewRefined(dims, len(ds.data))
				for _, v := range ds.data {
					r.Add(v)
				}
				return r
			})
			benchRecall(b, ds, exact, func(q []float32) []int { return hitIDs(r.Search(q, 10, nil)) })
		})
		for _, c := range configs {
			b.Run(fmt.Sprintf("%d/hnsw-M%d-ef%d-fetch%d", dims, c.m, c.ef, c.fetch), func(b *testing.B) {
				if c.long && testing.Short() {
					b.Skip("slow build; run without -short")
				}
				g, build := buildHNSW(ds, c)
				benchRecall(b, ds, exact, func(q []float32) []int { return searchHNSW(g, q, c.fetch) })
				b.ReportMetric(build.Seconds(), "build-s")
			})
		}
	}
}

type builtGraph struct {
	g     *hnsw.Graph[int]
	build time.Duration
}

func buildHNSW(ds dataset, c hnswConfig) (*hnsw.Graph[int], time.Duration) {
	key := fmt.Sprint("hnsw", len(ds.data), len(ds.data[0]), c.m, c.ef)
	bg := cached(key, func() builtGraph {
		g := hnsw.NewGraph[int]()
		g.Rng = rand.New(rand.NewSource(1))
		g.M, g.EfSearch = c.m, c.ef
		start := time.Now()
		for i, v := range ds.data {
			g.Add(hnsw.MakeNode(i, v))
		}
		return builtGraph{g, time.Since(start)}
	})
	return bg.g, bg.build
}

// searchHNSW fetches fetch results and keeps the 10 nearest, by the
// graph's own distance.
func searchHNSW(g *hnsw.Graph[int], q []float32, fetch int) []int {
	nodes := g.Search(q, fetch)
	dist := make(map[int]float32, len(nodes))
	for _, n := range nodes {
		dist[n.Key] = hnsw.CosineDistance(n.Value, q)
	}
	slices.SortFunc(nodes, func(a, b hnsw.Node[int]) int {
		return cmp.Or(cmp.Compare(dist[a.Key], dist[b.Key]), cmp.Compare(a.Key, b.Key))
	})
	ids := make([]int, 0, 10)
	for _, n := range nodes[:min(10, len(nodes))] {
		ids = append(ids, n.Key)
	}
	return ids
}

// benchRecall times b.N queries, then reports recall@10 of search over
// every query (after the timer: ResetTimer would drop the metric).
func benchRecall(b *testing.B, ds dataset, exact [][]int, search func([]float32) []int) {
	b.ResetTimer()
	for i := range b.N {
		search(ds.queries[i%len(ds.queries)])
	}
	b.StopTimer()
	got := make([][]int, len(ds.queries))
	for i, q := range ds.queries {
		got[i] = search(q)
	}
	b.ReportMetric(recall(exact, got), "recall@10")
}
