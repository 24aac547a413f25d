package store

import (
	"slices"
	"testing"
)

func TestTrigrams(t *testing.T) {
	g := Trigrams([]byte("AbAb"))
	// "aba", "bab" once each, whatever the case
	if want := []int32{'a'<<16 | 'b'<<8 | 'a', 'b'<<16 | 'a'<<8 | 'b'}; !slices.Equal(g, want) {
		t.Fatalf("Trigrams(AbAb) = %x, want %x", g, want)
	}
	if g := Trigrams([]byte("ab")); g == nil || len(g) != 0 {
		t.Fatalf("a text of two bytes: %v, want empty, not nil (nil: no trigrams kept)", g)
	}
	// A clause with a literal too short to hold a trigram filters nothing.
	cs := GramClauses([][][]byte{{[]byte("Nearest(")}, {[]byte("xyz"), []byte("ab")}, {[]byte("func")}})
	if len(cs) != 2 || len(cs[0]) != 1 || len(cs[0][0]) != 6 || !slices.Equal(cs[1][0], Trigrams([]byte("func"))) {
		t.Fatalf("GramClauses: %v", cs)
	}
}
