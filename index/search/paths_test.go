package search

import (
	"strings"
	"testing"
)

// TestPathTable proves paths are found by number and by name in a table
// in path order and in one that is not, and that a table holding another
// number of paths than its header says is refused.
func TestPathTable(t *testing.T) {
	for _, paths := range [][]string{
		{"a/b.go", "a/c.go", "new\nline.go", "z.go"},
		{"z.go", "a/c.go", "a/b.go"},
		{"only.go"},
		{},
	} {
		pt, ok := newPathTable([]byte(strings.Join(paths, pathSep)), len(paths))
		if !ok || pt.len() != len(paths) {
			t.Fatalf("%q: ok %v, len %d", paths, ok, pt.len())
		}
		for i, p := range paths {
			if got := pt.path(i); got != p {
				t.Errorf("%q: path(%d) = %q", paths, i, got)
			}
			if n, ok := pt.num(p); !ok || int(n) != i {
				t.Errorf("%q: num(%q) = %d, %v", paths, p, n, ok)
			}
			if !pt.hasPrefix(i, p[:1]) || pt.hasPrefix(i, p+"x") {
				t.Errorf("%q: hasPrefix of %q", paths, p)
			}
		}
		for _, p := range []string{"", "a", "a/b.goo", "zz"} {
			if _, ok := pt.num(p); ok {
				t.Errorf("%q: num(%q) found", paths, p)
			}
		}
	}
	for _, n := range []int{0, 1, 3} {
		if _, ok := newPathTable([]byte("a.go\x00b.go"), n); ok {
			t.Errorf("two paths taken for %d", n)
		}
	}
}

// TestPathNumAllocates proves looking a path up by name in a table in path
// order makes no string of the paths it passes: a one-shot query looks up
// every candidate of the other retrievers, hundreds, each a page fault or
// more of fresh memory in a new process.
func TestPathNumAllocates(t *testing.T) {
	var paths []string
	for i := range 64 {
		paths = append(paths, strings.Repeat("a/long/directory/name/", 3)+string(rune('a'+i/26))+string(rune('a'+i%26))+".go")
	}
	pt, ok := newPathTable([]byte(strings.Join(paths, pathSep)), len(paths))
	if !ok || pt.nums != nil {
		t.Fatalf("ok %v, map %v: want a table in path order", ok, pt.nums != nil)
	}
	want := paths[37]
	if n := testing.AllocsPerRun(100, func() {
		if n, ok := pt.num(want); !ok || n != 37 {
			t.Fatalf("num(%q) = %d, %v", want, n, ok)
		}
	}); n != 0 {
		t.Errorf("num allocates %.0f times a lookup", n)
	}
}
