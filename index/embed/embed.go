// Package embed turns chunks and queries into vectors. Builtin is the
// offline default: hashed term and sub-word features, computed from the
// text alone, so it needs no model file and is the same on every machine.
package embed

import (
	"context"
	"math"
)

// Embedder maps texts to vectors of Dims() float32s, L2-normalized.
type Embedder interface {
	// Model names the model; together with Dims it keys the embedding cache
	// and is recorded with the index's vectors.
	Model() string
	Dims() int
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Normalize scales v to unit length in place (a zero vector stays zero).
func Normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}

// Quantize turns a unit vector into int8 components and the scale that
// maps them back (x ≈ q*scale), appending to dst.
func Quantize(dst []int8, v []float32) ([]int8, float32) {
	var maxAbs float32
	for _, x := range v {
		if x < 0 {
			x = -x
		}
		maxAbs = max(maxAbs, x)
	}
	if maxAbs == 0 {
		for range v {
			dst = append(dst, 0)
		}
		return dst, 0
	}
	scale := maxAbs / 127
	for _, x := range v {
		dst = append(dst, int8(math.Round(float64(x/scale))))
	}
	return dst, scale
}
