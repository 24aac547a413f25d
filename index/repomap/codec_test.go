package repomap

import (
	"reflect"
	"testing"
)

// TestGraphEncodingRoundTrips: a decoded graph is the graph encoded and
// ranks as it does, to the last bit; every truncation and a flipped byte
// of the encoding is an error or a graph, never a panic.
func TestGraphEncodingRoundTrips(t *testing.T) {
	g := chain(30)
	raw, err := g.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, err := UnmarshalGraph(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, back) {
		t.Fatal("the decoded graph differs from the one encoded")
	}
	focus := map[string]float64{"f03.go": 1}
	if !reflect.DeepEqual(g.Rank(focus), back.Rank(focus)) {
		t.Fatal("the decoded graph ranks otherwise")
	}
	for n := range len(raw) {
		if _, err := UnmarshalGraph(raw[:n]); err == nil {
			t.Fatalf("%d of %d bytes decode without an error", n, len(raw))
		}
		bad := append([]byte(nil), raw...)
		bad[n] ^= 0x5a
		UnmarshalGraph(bad) // no panic
	}
}

// FuzzUnmarshalGraph: no input panics the decoder.
func FuzzUnmarshalGraph(f *testing.F) {
	raw, _ := chain(5).MarshalBinary()
	f.Add(raw)
	f.Fuzz(func(t *testing.T, data []byte) {
		if g, err := UnmarshalGraph(data); err == nil {
			g.Rank(nil)
		}
	})
}
