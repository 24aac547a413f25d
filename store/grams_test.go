package store

import (
	"fmt"
	"strings"
	"testing"
)

// TestGramBits: a text's filter holds every literal of the text, in any
// case of its ASCII letters; it holds few literals the text does not
// have; a literal of fewer than three bytes filters nothing.
func TestGramBits(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "func Handler%d(w ResponseWriter) error { return nil }\n", i)
	}
	text := b.String()
	bits := GramBits([]byte(text))
	if len(bits)*8 < 8*200 || len(bits)&(len(bits)-1) != 0 {
		t.Fatalf("a filter of %d bytes for a text of %d bytes", len(bits), len(text))
	}
	lits := func(ls ...string) [][]byte {
		var out [][]byte
		for _, l := range ls {
			out = append(out, []byte(l))
		}
		return out
	}
	for _, l := range []string{"func Handler17(", "RESPONSEWRITER", "return nil }", "r299"} {
		hs := GramHashes([][][]byte{lits(l)})
		if len(hs) != 1 || !BitsHold(bits, hs[0][0]) {
			t.Errorf("the filter does not hold %q, which the text has (ASCII case aside)", l)
		}
	}
	held := 0
	for i := range 1000 {
		hs := GramHashes([][][]byte{lits(fmt.Sprintf("zq%dxj", i))})
		if BitsHold(bits, hs[0][0]) {
			held++
		}
	}
	if held > 20 {
		t.Errorf("the filter holds %d of 1000 literals the text lacks", held)
	}
	if hs := GramHashes([][][]byte{lits("Nearest("), lits("xyz", "ab"), lits("func")}); len(hs) != 2 || len(hs[0][0]) != 6 || len(hs[1][0]) != 2 {
		t.Errorf("GramHashes: %v; want the clause with a two-byte literal left out", hs)
	}
	if bits := GramBits([]byte("ab")); len(bits) == 0 {
		t.Error("a text of two bytes has no filter; it must have an empty one (none: not filtered)")
	}
}
