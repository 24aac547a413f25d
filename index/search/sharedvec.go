package search

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/dossierhq/dossier/index/vecindex"
	"github.com/dossierhq/dossier/store"
)

// A shared snapshot's vectors are searched by its server (pgvector's HNSW
// index), not by scanning the snapshot's vector table: a one-shot query
// would fetch the whole table (75 MB for Go's source tree) to read it
// once. The server returns the nearest chunks by inner product with their
// stored (unit) vectors, the same cosine the local scan rescores its
// candidates to; files of the workspace's overlay are scored here from
// their own records, as a local index scores files changed since its
// snapshot.
//
// The absolute score calibrates each query's cosines against the null
// distribution of its cosines with every chunk (see cosineNull), which
// the local scan observes as it goes. The server's answer holds only the
// best, so the snapshot carries its vectors' moments instead (published
// with it, see VectorMoments): the mean vector, which gives the mean
// cosine of any query exactly, and a fixed sample of vectors, which gives
// the mean square. A filtered query is calibrated on the whole snapshot's
// moments, where the local scan uses the filtered chunks only.

// momentSample bounds the vectors a snapshot's moments keep for the mean
// square: the estimate's error is about 1/sqrt(momentSample) of it.
const momentSample = 1024

// VectorMoments are the moments of a snapshot's vectors (see above), in
// the terms the local scan observes its null in: int8 estimates
// (vecindex.Query.Estimate), so that both calibrate alike.
type VectorMoments struct {
	n      int
	dims   int
	scaled []float64 // the sum of every entry's scaled components
	sample [][]byte  // entries (vecindex's stored form, no residuals)
	every  int       // one vector in every is sampled
	seen   int
}

// NewVectorMoments starts the moments of a snapshot of total vectors of
// dims dimensions.
func NewVectorMoments(dims, total int) *VectorMoments {
	return &VectorMoments{dims: dims, scaled: make([]float64, dims), every: max(1, total/momentSample)}
}

// Add counts one vector, its entry in vecindex's stored form.
func (m *VectorMoments) Add(entry []byte) {
	if len(entry) != vecindex.EntrySize(m.dims) {
		return
	}
	m.n++
	vecindex.AddScaled(m.scaled, entry)
	if m.seen%m.every == 0 && len(m.sample) < momentSample {
		m.sample = append(m.sample, append([]byte(nil), entry...))
	}
	m.seen++
}

// Encode is the moments as a snapshot stores them.
func (m *VectorMoments) Encode() []byte {
	b := binary.AppendUvarint(nil, uint64(m.n))
	b = binary.AppendUvarint(b, uint64(m.dims))
	for _, s := range m.scaled {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(s))
	}
	b = binary.AppendUvarint(b, uint64(len(m.sample)))
	for _, s := range m.sample {
		b = append(b, s...)
	}
	return b
}

// sharedNull is the null distribution of q's cosines with a shared
// snapshot's vectors, from its moments.
func (v *view) sharedNull(q *vecindex.Query, qv []float32) (cosineNull, error) {
	raw := v.tx.SharedMeta(store.MetaVectorNull)
	if raw == nil {
		return cosineNull{}, nil // the prior alone
	}
	bad := fmt.Errorf("the shared snapshot's vector moments do not decode: publish it again with `dossier index --store`")
	n, k := binary.Uvarint(raw)
	if k <= 0 {
		return cosineNull{}, bad
	}
	raw = raw[k:]
	dims, k := binary.Uvarint(raw)
	if k <= 0 || int(dims) != len(qv) || len(raw) < k+8*int(dims) {
		return cosineNull{}, bad
	}
	raw = raw[k:]
	scaled := make([]float64, dims)
	for i := range scaled {
		scaled[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	sum := q.EstimateSum(scaled) // of n estimates
	raw = raw[8*dims:]
	s, k := binary.Uvarint(raw)
	size := vecindex.EntrySize(int(dims))
	if k <= 0 || len(raw[k:]) != int(s)*size {
		return cosineNull{}, bad
	}
	raw = raw[k:]
	var m2 float64
	for i := range int(s) {
		c := float64(q.Estimate(raw[i*size : (i+1)*size]))
		m2 += c * c
	}
	if s > 0 {
		m2 /= float64(s)
	}
	return cosineNull{n: int64(n), sum: int64(math.Round(sum * nullUnit)), sum2: int64(math.Round(float64(n) * m2 * nullUnit))}, nil
}

// vectorShared is vector (see vector.go) for a shared snapshot.
func (v *view) vectorShared(qv []float32, m store.VectorModel, f filter, limit int, want []hit, floor float64) ([]hit, map[key]hit, error) {
	q := vecindex.NewQuery(qv)
	// The server's scores are the rescored ones (no int8 estimates to
	// rescore): limit of them. A type filter drops some: ask for more.
	ask := limit
	if f.types != nil {
		ask *= 4
	}
	// The unit query: the server's inner products are then the cosines
	// the null calibrates (the scan's Query normalizes it too).
	ans, ok, err := v.tx.Nearest(m.Key(), unitOf(qv), ask, f.prefix)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		v.notes = append(v.notes, "vectors left out: the shared store's server has no pgvector (ask its administrator to install it, then `dossier store migrate`)")
		return nil, nil, nil
	}
	null, err := v.sharedNull(q, qv)
	if err != nil {
		return nil, nil, err
	}
	var all []hit
	for _, h := range ans {
		if v.dirty[h.Path] {
			continue // the overlay's version answers
		}
		keep, err := v.kindFilter(h.Path, f)
		if err != nil {
			return nil, nil, err
		}
		if keep == nil || keep(h.Ord) {
			all = append(all, hit{key: key{h.Path, h.Ord}, score: h.Score})
		}
	}
	sets := map[string]VectorSet{}
	refine := func(k key) (float64, bool, error) {
		set, ok := sets[k.path]
		if !ok {
			if rec := v.tx.VectorRecord(k.path); rec != nil {
				if set, err = DecodeVectors(rec); err != nil {
					return 0, false, fmt.Errorf("vectors of %s: %w", k.path, err)
				}
			}
			sets[k.path] = set
		}
		if set.Model != m.Model || set.Dims != len(qv) || k.ord >= set.Len() {
			return 0, false, nil
		}
		return float64(q.Refine(set.Entry(k.ord), set.Resid(k.ord))), true, nil
	}
	for p := range v.dirty {
		if !f.path(p) {
			continue
		}
		keep, err := v.kindFilter(p, f)
		if err != nil {
			return nil, nil, err
		}
		for j := 0; ; j++ {
			s, ok, err := refine(key{p, j})
			if err != nil {
				return nil, nil, err
			}
			if !ok {
				break
			}
			if keep == nil || keep(j) {
				all = append(all, hit{key: key{p, j}, score: s})
			}
		}
	}
	return v.scored(top(all, limit), null, m, f, want, floor, refine)
}

// Unshared reports whether a snapshot table is left out of a shared
// snapshot: the vector table and its paths, which a shared snapshot's
// server replaces (its vector index).
func Unshared(key []byte) bool {
	return string(key) == string(keyVecs) || string(key) == string(keyVecPaths)
}

func unitOf(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	u := make([]float32, len(v))
	if s == 0 {
		return u
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		u[i] = float32(float64(x) * inv)
	}
	return u
}
