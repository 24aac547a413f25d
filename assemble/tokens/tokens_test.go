package tokens

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestForEncoding(t *testing.T) {
	for _, c := range []struct {
		name  string
		exact bool
	}{{O200kBase, true}, {Cl100kBase, true}, {Estimate, false}, {" O200K_BASE ", true}} {
		ctr, err := ForEncoding(c.name)
		if err != nil {
			t.Fatalf("ForEncoding(%q): %v", c.name, err)
		}
		if ctr.Exact() != c.exact || ctr.Encoding() != strings.ToLower(strings.TrimSpace(c.name)) {
			t.Errorf("ForEncoding(%q) = %s exact=%v", c.name, ctr.Encoding(), ctr.Exact())
		}
	}
	if _, err := ForEncoding("p50k_base"); err == nil || !strings.Contains(err.Error(), "o200k_base") {
		t.Errorf("ForEncoding(p50k_base) error = %v, want one listing the encodings", err)
	}
}

func TestEstimate(t *testing.T) {
	e, _ := ForEncoding(Estimate)
	for text, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, strings.Repeat("x", 4000): 1000} {
		if got := e.Count(text); got != want {
			t.Errorf("estimate(%d bytes) = %d, want %d", len(text), got, want)
		}
	}
}

// TestCountKnownIDs pins a few results of npm tiktoken 1.0.22 that are
// easy to recheck by hand.
func TestCountKnownIDs(t *testing.T) {
	for _, c := range []struct {
		text          string
		o200k, cl100k []int
	}{
		{"", nil, nil},
		{"hello world", []int{24912, 2375}, []int{15339, 1917}},
		{"\n", []int{198}, []int{198}},
		{"x\n \n", []int{87, 47812}, []int{87, 27907}},
	} {
		if got := o200k.encode(c.text); !slices.Equal(got, c.o200k) {
			t.Errorf("o200k %q: %v, want %v", c.text, got, c.o200k)
		}
		if got := cl100k.encode(c.text); !slices.Equal(got, c.cl100k) {
			t.Errorf("cl100k %q: %v, want %v", c.text, got, c.cl100k)
		}
	}
	// A 3,000-byte piece takes the heap merge: 48 tokens in both.
	long := strings.Repeat("=", 3000)
	if a, b := o200k.Count(long), cl100k.Count(long); a != 48 || b != 48 {
		t.Errorf("3000 \"=\": o200k %d, cl100k %d, want 48, 48", a, b)
	}
}

// TestMergeLongMatchesScan checks the heap merge against the scan on the
// same pieces, which the scan would otherwise never see.
func TestMergeLongMatchesScan(t *testing.T) {
	o200k.load()
	var m merger
	for _, piece := range []string{
		"ab", "aaaa", "========", "the quick", "\n\n\n\n\n\n",
		strings.Repeat("ab", 60), strings.Repeat("=", 127), "  " + strings.Repeat("-", 100) + "//",
		"🙂🙂🙂🙂🙂🙂🙂🙂🙂🙂", strings.Repeat("\t", 90),
	} {
		if len(piece) > shortPiece {
			t.Fatalf("piece of %d bytes is not short", len(piece))
		}
		scan := append([]int32(nil), m.merge(o200k.ranks, piece)...)
		long := mergeLong(o200k.ranks, piece)
		if len(scan) != len(long) {
			t.Errorf("%q: scan %v, heap %v", piece, scan, long)
			continue
		}
		for i := range scan {
			if scan[i] != long[i] {
				t.Errorf("%q: scan %v, heap %v", piece, scan, long)
				break
			}
		}
	}
}

func TestCountConcurrent(t *testing.T) {
	files := corpus(t)
	want := map[string][2]int{}
	for name, text := range files {
		want[name] = [2]int{o200k.Count(text), cl100k.Count(text)}
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for name, text := range files {
				if got := [2]int{o200k.Count(text), cl100k.Count(text)}; got != want[name] {
					t.Errorf("%s: concurrent counts %v, want %v", name, got, want[name])
				}
			}
		})
	}
	wg.Wait()
}

func FuzzCount(f *testing.F) {
	f.Add("hello\n \n\tworld's 12345 🚀")
	f.Add("\xff\xe2\x82\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, c := range exactCounters() {
			n := c.Count(text)
			if n < 0 || n > len(text) || (n == 0) != (text == "") {
				t.Fatalf("%s: Count(%q) = %d", c.name, text, n)
			}
			if ids := c.encode(text); len(ids) != n {
				t.Fatalf("%s: %d ids but Count %d", c.name, len(ids), n)
			}
		}
	})
}
