package embed

import (
	"context"
	"math"
	"testing"
)

// TestBuiltinDeterministic proves a vector does not depend on the order
// terms are added in (maps are iterated at random), nor on the feature
// cache being warm.
func TestBuiltinDeterministic(t *testing.T) {
	terms := map[string]int{"parse": 3, "config": 2, "file": 1, "yaml": 4, "readfile": 1, "err": 5}
	var first []float32
	for i := range 20 {
		b := NewBuiltin()
		if i%2 == 1 {
			b.Chunk(make([]float32, BuiltinDims), make([]float32, BuiltinDims), terms, terms, terms) // warm the cache
		}
		v := make([]float32, BuiltinDims)
		b.Chunk(v, make([]float32, BuiltinDims), map[string]int{"parseconfig": 1}, map[string]int{"path": 1, "string": 1}, terms)
		if first == nil {
			first = v
			continue
		}
		for j := range v {
			if math.Float32bits(v[j]) != math.Float32bits(first[j]) {
				t.Fatalf("run %d: component %d is %v, first run %v", i, j, v[j], first[j])
			}
		}
	}
}

// TestBuiltinSubwords checks what the hashed trigrams are for: a word and
// its abbreviation land closer than unrelated words.
func TestBuiltinSubwords(t *testing.T) {
	vs, err := NewBuiltin().Embed(context.Background(), []string{"address", "addr", "connection", "timeout"})
	if err != nil {
		t.Fatal(err)
	}
	cos := func(a, b []float32) float64 {
		var s float64
		for i := range a {
			s += float64(a[i]) * float64(b[i])
		}
		return s
	}
	// Three shared trigrams at weight 0.3 give about 0.1; unrelated words 0.
	if near, far := cos(vs[0], vs[1]), cos(vs[0], vs[3]); near < 0.08 || near <= far+0.05 {
		t.Errorf("cos(address, addr) = %.3f, cos(address, timeout) = %.3f: subwords do not bring abbreviations close", near, far)
	}
	for i, v := range vs {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has norm² %.6f, want 1", i, n)
		}
	}
}
