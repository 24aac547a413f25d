package vecindex

import (
	"encoding/binary"
	"math"
)

// Stored vectors may also be laid out by column: for a block of vectors,
// component j of every vector, contiguous. A query then reads only the
// columns of its own non-zero components. The builtin embedder hashes a
// query's few words and their trigrams into 15-70 of its 256 components,
// so a scan reads a fifth of the table or less, and each score is still
// the exact int8 dot product Query.Estimate gives, bit for bit: a column
// the query does not use adds zero to it.
//
// The scan accumulates eight vectors of one column per 64-bit load, as
// dot.go does within one vector: each component x is read as an unsigned
// byte (u = x+128 for a positive query component, 255-u = 127-x for a
// negative one, so every product is non-negative), and the masks put bytes
// k and k+4 of a word in the two 32-bit halves of accumulator k. A half
// holds at most 255·127 per column, so 2³² / 32385 columns (over 130,000)
// never carry; the offsets are taken back out once per vector.

// ColumnQuery is a query prepared for a column scan. It is read-only once
// made, so goroutines may share it.
type ColumnQuery struct {
	// Dims are the components the query reads, ascending: every one
	// where the unit query is not zero (Refine needs them all), whether
	// or not it quantizes to zero.
	Dims []int
	flip []uint64 // per Dims: what turns a word of x into u or 255-u
	mag  []uint64 // per Dims: |q|, 0 where q quantizes to zero
	corr int64    // Σ over q>0 of 128·q, plus over q<0 of 127·|q|
	q    *Query
}

// Columns prepares q for a column scan.
func (q *Query) Columns() *ColumnQuery {
	c := &ColumnQuery{q: q}
	for j, x := range q.u {
		if x == 0 {
			continue
		}
		c.Dims = append(c.Dims, j)
		v := int64(q.q.comps[j])
		switch {
		case v > 0:
			c.flip, c.mag = append(c.flip, signFlip), append(c.mag, uint64(v))
			c.corr += 128 * v
		case v < 0:
			c.flip, c.mag = append(c.flip, signFlip^0xFFFFFFFFFFFFFFFF), append(c.mag, uint64(-v))
			c.corr += 127 * -v
		default:
			c.flip, c.mag = append(c.flip, 0), append(c.mag, 0)
		}
	}
	return c
}

// AccSize is the number of accumulator words a scan of n vectors needs.
func AccSize(n int) int { return (n + 7) / 8 * 4 }

// Accumulate adds the products of the query's columns with cols, which
// hold the same n vectors' components (cols[i] is component Dims[i] of
// each), to acc (AccSize(n) words, zero at first).
func (c *ColumnQuery) Accumulate(acc []uint64, cols [][]byte) {
	i := 0
	// Four columns at a time: each accumulator is loaded and stored once
	// for four of them.
	for ; i+4 <= len(cols); i += 4 {
		if c.mag[i]|c.mag[i+1]|c.mag[i+2]|c.mag[i+3] == 0 {
			continue
		}
		accumulate4(acc, [4][]byte{cols[i], cols[i+1], cols[i+2], cols[i+3]},
			[4]uint64{c.flip[i], c.flip[i+1], c.flip[i+2], c.flip[i+3]},
			[4]uint64{c.mag[i], c.mag[i+1], c.mag[i+2], c.mag[i+3]})
	}
	for ; i < len(cols); i++ {
		if c.mag[i] != 0 {
			accumulate1(acc, cols[i], c.flip[i], c.mag[i])
		}
	}
}

func accumulate4(acc []uint64, cols [4][]byte, flip, mag [4]uint64) {
	n := len(cols[0])
	c0, c1, c2, c3 := cols[0][:n], cols[1][:n], cols[2][:n], cols[3][:n]
	acc = acc[:AccSize(n)]
	w := 0
	for g := 0; g+8 <= n; g += 8 {
		x0 := binary.LittleEndian.Uint64(c0[g:]) ^ flip[0]
		x1 := binary.LittleEndian.Uint64(c1[g:]) ^ flip[1]
		x2 := binary.LittleEndian.Uint64(c2[g:]) ^ flip[2]
		x3 := binary.LittleEndian.Uint64(c3[g:]) ^ flip[3]
		a := (*[4]uint64)(acc[w:])
		a[0] += (x0&laneMask)*mag[0] + (x1&laneMask)*mag[1] + (x2&laneMask)*mag[2] + (x3&laneMask)*mag[3]
		a[1] += (x0>>8&laneMask)*mag[0] + (x1>>8&laneMask)*mag[1] + (x2>>8&laneMask)*mag[2] + (x3>>8&laneMask)*mag[3]
		a[2] += (x0>>16&laneMask)*mag[0] + (x1>>16&laneMask)*mag[1] + (x2>>16&laneMask)*mag[2] + (x3>>16&laneMask)*mag[3]
		a[3] += (x0>>24&laneMask)*mag[0] + (x1>>24&laneMask)*mag[1] + (x2>>24&laneMask)*mag[2] + (x3>>24&laneMask)*mag[3]
		w += 4
	}
	for g := n &^ 7; g < n; g++ {
		for k := range 4 {
			accumulateOne(acc, g, cols[k][g], flip[k], mag[k])
		}
	}
}

func accumulate1(acc []uint64, col []byte, flip, mag uint64) {
	n := len(col)
	acc = acc[:AccSize(n)]
	w := 0
	for g := 0; g+8 <= n; g += 8 {
		x := binary.LittleEndian.Uint64(col[g:]) ^ flip
		a := (*[4]uint64)(acc[w:])
		a[0] += (x & laneMask) * mag
		a[1] += (x >> 8 & laneMask) * mag
		a[2] += (x >> 16 & laneMask) * mag
		a[3] += (x >> 24 & laneMask) * mag
		w += 4
	}
	for g := n &^ 7; g < n; g++ {
		accumulateOne(acc, g, col[g], flip, mag)
	}
}

// accumulateOne adds vector i's product to its half of its accumulator,
// where the word loop would have put it.
func accumulateOne(acc []uint64, i int, b byte, flip, mag uint64) {
	k := i % 8
	acc[i/8*4+k%4] += uint64(b^byte(flip)) * mag << (32 * (k / 4))
}

// Dot is vector i's int8 dot product with the query, from acc after every
// column was accumulated.
func (c *ColumnQuery) Dot(acc []uint64, i int) int64 {
	k := i % 8
	return int64(acc[i/8*4+k%4]>>(32*(k/4))&0xFFFFFFFF) - c.corr
}

// Estimate is vector i's int8 estimate of the cosine, from acc after every
// column was accumulated, as Query.Estimate gives it for the vector's entry
// (whose scale is scale).
func (c *ColumnQuery) Estimate(acc []uint64, i int, scale float32) float32 {
	return float32(c.Dot(acc, i)) * c.q.q.scale * scale
}

// Refine is Query.Refine for a vector whose components and residuals at
// Dims are comps and resid (one byte each, in that order) and whose scale
// is scale: the same cosine, bit for bit, as the components it leaves out
// are those the unit query multiplies by zero.
func (c *ColumnQuery) Refine(comps, resid []byte, scale float32) float32 {
	u := c.q.u
	comps, resid = comps[:len(c.Dims)], resid[:len(c.Dims)]
	var s [2]float32 // as refine sums them: even components, odd ones
	for i, j := range c.Dims {
		s[j%2] += u[j] * float32(residSteps*int32(int8(comps[i]))+int32(int8(resid[i])))
	}
	return (s[0] + s[1]) * (scale / residSteps)
}

// ColumnEntry splits a stored entry into what a column layout keeps: its
// scale and its components.
func ColumnEntry(entry []byte) (scale float32, comps []byte) {
	return math.Float32frombits(binary.LittleEndian.Uint32(entry)), entry[8:]
}
