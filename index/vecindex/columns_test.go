package vecindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// columnsOf lays out the entries of n stored vectors by column: their
// scales, and component j of each vector contiguous for every j.
func columnsOf(entries []byte, dims int) ([]float32, [][]byte) {
	size := EntrySize(dims)
	n := len(entries) / size
	scales := make([]float32, n)
	cols := make([][]byte, dims)
	for j := range cols {
		cols[j] = make([]byte, n)
	}
	for i := range n {
		scale, comps := ColumnEntry(entries[i*size : (i+1)*size])
		scales[i] = scale
		for j, c := range comps {
			cols[j][i] = c
		}
	}
	return scales, cols
}

// sparseQuery is a query with only nz non-zero components, some of them
// tiny enough to quantize to zero, as a hashed query of a few words is.
func sparseQuery(r *rand.Rand, dims, nz int) []float32 {
	q := make([]float32, dims)
	for range nz {
		q[r.IntN(dims)] = float32(r.NormFloat64())
	}
	q[r.IntN(dims)] = 1e-4 // non-zero, quantizes to zero
	return q
}

// TestColumnScanIsExact proves the column scan gives, for every vector,
// the int8 dot product and estimate the row scan gives and the refined
// cosine Query.Refine gives, bit for bit: sparse and dense queries, any
// number of vectors (not only whole words of eight), lengths that are not
// a multiple of eight, and components at the int8 extremes.
func TestColumnScanIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 18))
	for _, dims := range []int{256, 250, 13} {
		for _, n := range []int{1, 7, 8, 9, 100, 1003} {
			t.Run(fmt.Sprintf("%d×%d", n, dims), func(t *testing.T) {
				var entries, resid []byte
				ds := newMixture(int64(dims*n), dims, 4).drawN(n)
				ds[0] = make([]float32, dims) // all at the extremes
				for j := range ds[0] {
					ds[0][j] = float32(1 - 2*(j%2))
				}
				for _, v := range ds {
					entries, resid = Encode(entries, resid, v)
				}
				scales, cols := columnsOf(entries, dims)
				size := EntrySize(dims)
				for _, qv := range [][]float32{sparseQuery(r, dims, 30), sparseQuery(r, dims, 3), newMixture(3, dims, 1).draw(), ds[0]} {
					q := NewQuery(qv)
					cq := q.Columns()
					read := queryColumns(cq, cols)
					acc := make([]uint64, AccSize(n))
					cq.Accumulate(acc, read)
					for i := range n {
						entry := entries[i*size : (i+1)*size]
						scale, comps := ColumnEntry(entry)
						if scale != scales[i] {
							t.Fatalf("vector %d: scale %v, want %v", i, scales[i], scale)
						}
						if got, want := cq.Dot(acc, i), q.q.dot(comps, blockSum(comps)); got != want {
							t.Fatalf("vector %d: dot %d, want %d", i, got, want)
						}
						if got, want := cq.Estimate(acc, i, scale), q.Estimate(entry); math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("vector %d: estimate %v, want %v", i, got, want)
						}
						r := resid[i*dims : (i+1)*dims]
						mine, myResid := make([]byte, len(cq.Dims)), make([]byte, len(cq.Dims))
						for k, j := range cq.Dims {
							mine[k], myResid[k] = comps[j], r[j]
						}
						if got, want := cq.Refine(mine, myResid, scale), q.Refine(entry, r); math.Float32bits(got) != math.Float32bits(want) {
							t.Fatalf("vector %d: refined %v, want %v", i, got, want)
						}
					}
				}
			})
		}
	}
}

// TestColumnQueryDims proves a column query reads every component where
// the unit query is not zero, including one that quantizes to zero, and
// no other.
func TestColumnQueryDims(t *testing.T) {
	q := make([]float32, 16)
	q[3], q[7], q[12] = 1, -0.5, 1e-4
	cq := NewQuery(q).Columns()
	if fmt.Sprint(cq.Dims) != "[3 7 12]" {
		t.Errorf("Dims = %v, want [3 7 12]", cq.Dims)
	}
	if len(NewQuery(make([]float32, 16)).Columns().Dims) != 0 {
		t.Errorf("a zero query reads columns")
	}
}

// queryColumns is the columns of cols a query reads, in its order.
func queryColumns(cq *ColumnQuery, cols [][]byte) [][]byte {
	read := make([][]byte, len(cq.Dims))
	for i, j := range cq.Dims {
		read[i] = cols[j]
	}
	return read
}
