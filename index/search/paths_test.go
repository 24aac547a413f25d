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
