package search

import (
	"strings"
	"testing"
)

// TestDedupeFoldInPlace checks that dedupe and fold filter the results in
// place: a one-shot process pays a page fault for each fresh page it
// allocates, and their slices grown result by result were a fifth of what
// a text query allocated.
func TestDedupeFoldInPlace(t *testing.T) {
	m := &Meta{}
	mk := func() []ranked {
		return []ranked{
			{Result: Result{Path: "a.go", StartLine: 1, EndLine: 10}, meta: m},
			{Result: Result{Path: "a.go", StartLine: 5, EndLine: 12}, meta: m}, // overlaps the first
			{Result: Result{Path: "b.go", StartLine: 1, EndLine: 3, Symbol: "B"}, meta: m},
			{Result: Result{Path: "c.go", StartLine: 1, EndLine: 3, Symbol: "C"}, meta: m},
		}
	}
	rs := fold(dedupe(mk()))
	if len(rs) != 3 || rs[0].Path != "a.go" || rs[1].Path != "b.go" || rs[2].Path != "c.go" {
		t.Fatalf("fold(dedupe) = %+v, want a.go 1-10, b.go, c.go", rs)
	}
	in := mk()
	if n := testing.AllocsPerRun(10, func() {
		copy(in, mk())
		_ = fold(dedupe(in))
	}); n > 1 { // mk's own slice
		t.Errorf("dedupe and fold allocate %.0f times, want none", n-1)
	}
}

// TestFuseAllocs checks that fuse keeps its candidates in one slice, not
// one allocation each (see TestDedupeFoldInPlace on fresh pages).
func TestFuseAllocs(t *testing.T) {
	var text, vec []hit
	for i := range 200 {
		text = append(text, hit{key: key{"a.go", i}, raw: float64(300 - i), score: 1})
		vec = append(vec, hit{key: key{"b.go", i}, raw: float64(300 - i), score: 1})
	}
	lists := map[string][]hit{"text": text, "vector": vec}
	order := []string{"text", "vector"}
	res, _ := fuse(lists, order, nil)
	if len(res) != 400 || res[0].key != (key{"a.go", 0}) {
		t.Fatalf("fuse: %d candidates, first %v", len(res), res[0].key)
	}
	if n := testing.AllocsPerRun(5, func() { fuse(lists, order, nil) }); n > 20 {
		t.Errorf("fuse of 400 candidates allocates %.0f times, want a few", n)
	}
}

// TestBestLineAllocs checks that picking a chunk's best line reads its span
// in place, copying none of its lines, and marks the terms a line has shown
// without a map of its own (see TestDedupeFoldInPlace on fresh pages).
func TestBestLineAllocs(t *testing.T) {
	v := &view{e: NewEngine()}
	var text []byte
	for i := range 200 {
		if i == 120 {
			text = append(text, "\treturn parseDuration(s) // parse the duration\n"...)
			continue
		}
		text = append(text, "\tx := y + z // nothing to see\n"...)
	}
	qt := v.e.tok.Terms("parse a duration")
	st := stats{n: 1000, df: map[string]int{}}
	lt := newLineTerms(qt, st)
	off, n := v.bestLine(text, 0, len(text), lt)
	if n != 120 || !strings.HasPrefix(string(text[off:]), "\treturn parseDuration") {
		t.Fatalf("bestLine = line %d at %d, want line 120", n, off)
	}
	if a := testing.AllocsPerRun(10, func() { v.bestLine(text, 0, len(text), lt) }); a > 1 {
		t.Errorf("bestLine of a 200-line span allocates %.0f times, want at most 1", a)
	}
}

// TestLineWithin checks when a line found in part of a file's text needs
// more of it: when it reaches an edge of the part that has text beyond.
func TestLineWithin(t *testing.T) {
	text := []byte("end of one\nwhole line\nstart of")
	for _, c := range []struct {
		off           int
		before, after bool
		want          bool
	}{
		{0, false, false, true}, {0, true, false, false}, {12, true, true, true},
		{25, true, false, true}, {25, true, true, false},
	} {
		if got := lineWithin(text, c.off, c.before, c.after); got != c.want {
			t.Errorf("lineWithin(%d, before %v, after %v) = %v, want %v", c.off, c.before, c.after, got, c.want)
		}
	}
}
