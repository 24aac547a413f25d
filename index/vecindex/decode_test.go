package vecindex

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestDecodeGivesTheStoredVector(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]float32, 64)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	entries, resid := Encode(nil, nil, v)
	got := Decode(entries, resid)
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	norm = math.Sqrt(norm)
	for i := range v {
		if d := math.Abs(float64(got[i]) - float64(v[i])/norm); d > 1e-3 {
			t.Fatalf("component %d: got %v, want %v", i, got[i], float64(v[i])/norm)
		}
	}
}
