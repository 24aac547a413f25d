package vecindex

import (
	"encoding/binary"
	"math"
	"slices"
)

// Stored vectors are what dossier keeps on disk: per vector an entry of
// EntrySize(dims) bytes (float32 scale, int32 block sum, dims int8
// components, little-endian) and, in a separate run so a scan never reads
// them, dims residual bytes. Query scores them where they lie, with no
// decoding: a search estimates every entry with the int8 scan, keeps
// Candidates(k), and rescores those from their residuals, the same two
// steps as Refined, so the same recall (TestStoredRecall).

// EntrySize is the size of one stored vector's entry.
func EntrySize(dims int) int { return 8 + dims }

// Encode appends the stored form of v (normalized first; v itself is not
// modified) to entries and resid.
func Encode(entries, resid []byte, v []float32) ([]byte, []byte) {
	e, r := len(entries), len(resid)
	entries, resid = slices.Grow(entries, EntrySize(len(v)))[:e+EntrySize(len(v))], slices.Grow(resid, len(v))[:r+len(v)]
	comps := entries[e+8:]
	scale := quantizeInto(comps, resid[r:], v)
	binary.LittleEndian.PutUint32(entries[e:], math.Float32bits(scale))
	binary.LittleEndian.PutUint32(entries[e+4:], uint32(blockSum(comps)))
	return entries, resid
}

// Candidates is how many int8 estimates a search rescores for k results.
func Candidates(k int) int { return candidates(k) }

// Query is a search vector prepared for scoring stored vectors. It is
// read-only once made, so goroutines may share it.
type Query struct {
	q query
	u []float32 // the unit query, for rescoring
}

// NewQuery prepares v (of the stored vectors' length) for scoring.
func NewQuery(v []float32) *Query { return &Query{q: prepare(v), u: normalized(v)} }

// Dims is the query's length.
func (q *Query) Dims() int { return len(q.u) }

// Estimate is the int8 estimate of the cosine of the query and a stored
// entry (which must be EntrySize(q.Dims()) bytes).
func (q *Query) Estimate(entry []byte) float32 {
	scale := math.Float32frombits(binary.LittleEndian.Uint32(entry))
	sum := int32(binary.LittleEndian.Uint32(entry[4:]))
	return float32(q.q.dot(entry[8:], sum)) * q.q.scale * scale
}

// Refine is the cosine of the query and a stored vector rebuilt from its
// entry and residuals to 16-bit precision.
func (q *Query) Refine(entry, resid []byte) float32 {
	scale := math.Float32frombits(binary.LittleEndian.Uint32(entry))
	return refine(q.u, entry[8:], resid, scale)
}

// refine is the cosine of the unit vector u with the vector whose int8
// components are comps, residuals resid and scale scale: component =
// (254·comp + residual) · scale/254.
func refine(u []float32, comps, resid []byte, scale float32) float32 {
	comps, resid = comps[:len(u)], resid[:len(u)]
	var s0, s1 float32
	i := 0
	for ; i+2 <= len(u); i += 2 {
		s0 += u[i] * float32(residSteps*int32(int8(comps[i]))+int32(int8(resid[i])))
		s1 += u[i+1] * float32(residSteps*int32(int8(comps[i+1]))+int32(int8(resid[i+1])))
	}
	if i < len(u) {
		s0 += u[i] * float32(residSteps*int32(int8(comps[i]))+int32(int8(resid[i])))
	}
	return (s0 + s1) * (scale / residSteps)
}

// Decode returns the unit vector a stored entry and its residuals hold
// (as refine reads them): for a server that keeps vectors of its own.
func Decode(entry, resid []byte) []float32 {
	scale := math.Float32frombits(binary.LittleEndian.Uint32(entry))
	comps := entry[8:]
	v := make([]float32, len(resid))
	for i := range v {
		v[i] = float32(residSteps*int32(int8(comps[i]))+int32(int8(resid[i]))) * (scale / residSteps)
	}
	return v
}

// EstimateSum is the sum of the query's int8 estimates (Estimate) with a
// set of stored vectors, from the sum of their scaled components (each
// entry's scale times its components, summed component by component; see
// AddScaled): the estimate is linear in them.
func (q *Query) EstimateSum(scaled []float64) float64 {
	var s float64
	for i, c := range q.q.comps {
		if i < len(scaled) {
			s += float64(c) * scaled[i]
		}
	}
	return s * float64(q.q.scale)
}

// AddScaled adds an entry's scale times its components to sum.
func AddScaled(sum []float64, entry []byte) {
	scale := float64(math.Float32frombits(binary.LittleEndian.Uint32(entry)))
	for i, c := range entry[8:] {
		if i < len(sum) {
			sum[i] += scale * float64(int8(c))
		}
	}
}
