package vecindex

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/dossierhq/dossier/index/embed"
)

// Hit is one search result: a vector's ID (the order it was added in,
// from 0) and its estimated cosine similarity with the query.
type Hit struct {
	ID    int
	Score float32
}

// Flat is an exact index over int8-quantized unit vectors: a search scores
// every vector. Vectors are stored contiguously, dims bytes each, with one
// float32 scale per vector (component ≈ int8 × scale).
//
// Searches may run concurrently with each other, not with Add.
type Flat struct {
	dims   int
	comps  []byte    // n×dims int8 components, as bytes
	scales []float32 // n quantization scales
	sums   []int32   // n block sums, see blockSum
}

// NewFlat returns an empty index of dims-dimensional vectors with room for
// capacity of them. It panics if dims is not in 1..65536.
func NewFlat(dims, capacity int) *Flat {
	if dims <= 0 || dims > maxDims {
		panic(fmt.Sprintf("vecindex: dims %d out of range 1..%d", dims, maxDims))
	}
	capacity = max(capacity, 0)
	return &Flat{
		dims:   dims,
		comps:  make([]byte, 0, capacity*dims),
		scales: make([]float32, 0, capacity),
		sums:   make([]int32, 0, capacity),
	}
}

// Dims returns the number of components of every vector.
func (f *Flat) Dims() int { return f.dims }

// Len returns the number of vectors added.
func (f *Flat) Len() int { return len(f.scales) }

// Add normalizes and quantizes v and returns its ID. It panics if
// len(v) != Dims(), as a slice index out of range would.
func (f *Flat) Add(v []float32) int {
	f.checkLen(len(v))
	q, scale := quantizeUnit(v)
	for _, x := range q {
		f.comps = append(f.comps, byte(x))
	}
	return f.push(scale)
}

// AddQuantized adds a vector already quantized by embed.Quantize: comps
// holds its Dims() int8 components as bytes. It returns the vector's ID
// and panics if len(comps) != Dims().
func (f *Flat) AddQuantized(scale float32, comps []byte) int {
	f.checkLen(len(comps))
	f.comps = append(f.comps, comps...)
	return f.push(scale)
}

// RecordSize is the size of one vector in the encoding AddRecords reads:
// a 4-byte little-endian float32 scale, then dims int8 components.
func RecordSize(dims int) int { return 4 + dims }

// AddRecords adds every vector of data, a run of records of
// RecordSize(Dims()) bytes (the layout dossier's store keeps), and returns
// the ID of the first. A length that is not a whole number of records is
// an error and adds nothing.
func (f *Flat) AddRecords(data []byte) (int, error) {
	size := RecordSize(f.dims)
	if len(data)%size != 0 {
		return 0, fmt.Errorf("vector records: %d bytes is not a multiple of %d (4-byte scale + %d components)", len(data), size, f.dims)
	}
	first := f.Len()
	f.comps = slices.Grow(f.comps, len(data)/size*f.dims)
	for ; len(data) > 0; data = data[size:] {
		f.AddQuantized(math.Float32frombits(binary.LittleEndian.Uint32(data)), data[4:size])
	}
	return first, nil
}

func (f *Flat) checkLen(n int) {
	if n != f.dims {
		panic(fmt.Sprintf("vecindex: vector of %d components added to an index of %d", n, f.dims))
	}
}

func (f *Flat) push(scale float32) int {
	id := len(f.scales)
	f.scales = append(f.scales, scale)
	f.sums = append(f.sums, blockSum(f.vec(id)))
	return id
}

func (f *Flat) vec(id int) []byte {
	return f.comps[id*f.dims : (id+1)*f.dims : (id+1)*f.dims]
}

// score is vector id's estimated cosine with q. Search and SearchScores
// share it so the same pair always gets the same figure.
func (f *Flat) score(q *query, id int) float32 {
	return float32(q.dot(f.vec(id), f.sums[id])) * q.scale * f.scales[id]
}

// Search returns the k vectors most similar to q, best first; equal
// scores come in ID order, so the answer does not depend on the number of
// cores. q need not be unit length (a zero q scores every vector 0). keep,
// if not nil, is asked about every vector, possibly from several
// goroutines at once, and a vector it rejects is left out. A k <= 0, an
// empty index or a query of the wrong length gives nil. The scan is split
// across GOMAXPROCS goroutines when the index is large enough to repay
// them.
func (f *Flat) Search(q []float32, k int, keep func(id int) bool) []Hit {
	return f.search(q, k, keep, f.workers())
}

// minWork is the number of components below which a scan stays on one
// goroutine: about 80µs of work, against a few µs to start and join one.
const minWork = 1 << 18

func (f *Flat) workers() int {
	return max(1, min(runtime.GOMAXPROCS(0), len(f.comps)/minWork))
}

func (f *Flat) search(qv []float32, k int, keep func(id int) bool, workers int) []Hit {
	n := f.Len()
	if k <= 0 || n == 0 || len(qv) != f.dims {
		return nil
	}
	q := prepare(qv)
	k = min(k, n)
	workers = max(1, min(workers, n))
	heaps := make([]topK, workers)
	for w := range heaps {
		heaps[w] = topK{k: k, hits: make([]Hit, 0, k)}
	}
	if workers == 1 {
		f.scan(&q, 0, n, keep, &heaps[0])
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			lo, hi := n*w/workers, n*(w+1)/workers
			wg.Go(func() { f.scan(&q, lo, hi, keep, &heaps[w]) })
		}
		wg.Wait()
	}
	all := heaps[0].hits
	for _, h := range heaps[1:] {
		all = append(all, h.hits...)
	}
	slices.SortFunc(all, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return all[:min(k, len(all))]
}

// scan offers vectors lo..hi-1 to h.
func (f *Flat) scan(q *query, lo, hi int, keep func(int) bool, h *topK) {
	for id := lo; id < hi; id++ {
		if keep != nil && !keep(id) {
			continue
		}
		hit := Hit{id, f.score(q, id)}
		// Most vectors lose to the worst kept hit: skip the call.
		if len(h.hits) == h.k && !worse(h.hits[0], hit) {
			continue
		}
		h.offer(hit)
	}
}

// SearchScores returns the estimated cosine of q with each vector of ids,
// in the same order: the scores Search would give them, for candidates
// found by other retrievers. A query of the wrong length gives nil; an ID
// out of range panics.
func (f *Flat) SearchScores(q []float32, ids []int) []float32 {
	if len(q) != f.dims {
		return nil
	}
	pq := prepare(q)
	out := make([]float32, len(ids))
	for i, id := range ids {
		out[i] = f.score(&pq, id)
	}
	return out
}

// quantizeUnit returns v scaled to unit length and quantized; v is not
// modified.
func quantizeUnit(v []float32) ([]int8, float32) {
	return embed.Quantize(make([]int8, 0, len(v)), normalized(v))
}

// normalized returns a unit-length copy of v.
func normalized(v []float32) []float32 {
	u := slices.Clone(v)
	embed.Normalize(u)
	return u
}

// topK keeps the k best hits seen, as a min-heap whose root is the worst.
type topK struct {
	k    int
	hits []Hit
}

// worse orders hits for the heap: lower score, or equal score and higher
// ID, is worse.
func worse(a, b Hit) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.ID > b.ID)
}

func (t *topK) offer(h Hit) {
	if len(t.hits) < t.k {
		t.hits = append(t.hits, h)
		t.up(len(t.hits) - 1)
		return
	}
	if !worse(t.hits[0], h) {
		return
	}
	t.hits[0] = h
	t.down(0)
}

func (t *topK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !worse(t.hits[i], t.hits[p]) {
			return
		}
		t.hits[i], t.hits[p] = t.hits[p], t.hits[i]
		i = p
	}
}

func (t *topK) down(i int) {
	n := len(t.hits)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && worse(t.hits[c+1], t.hits[c]) {
			c++
		}
		if !worse(t.hits[c], t.hits[i]) {
			return
		}
		t.hits[i], t.hits[c] = t.hits[c], t.hits[i]
		i = c
	}
}
