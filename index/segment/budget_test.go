package segment

import (
	"context"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/lang"
)

// TestCommentsWalkedOnce proves the walk goes through each comment of a
// long run once, at the top level, in a class body and in a preprocessor
// conditional: its steps grow with the comments, not with their square
// (issue 30: 104 s for 400 KB of `//x` lines, by NamedChild(i)).
func TestCommentsWalkedOnce(t *testing.T) {
	p := NewParsers()
	defer p.Close()
	for _, tc := range []struct {
		language, head, tail, symbol string
		perComment                   int // the listings a comment is in
	}{
		{lang.Go, "package p\n\n", "\nfunc F() {}\n", "F", 1},
		// A class body is listed for its outline, then walked.
		{lang.Java, "class A {\n", "void m() {}\n}\n", "m", 2},
		{lang.C, "#ifdef X\n", "int f(void) { return 0; }\n#endif\n", "f", 1},
	} {
		for _, n := range []int{1000, 16000} {
			src := []byte(tc.head + strings.Repeat("//x\n", n) + tc.tail)
			res := File(context.Background(), p, tc.language, lang.SrcCode, src)
			if res.Fallback != "" {
				t.Fatalf("%s, %d comments: %s", tc.language, n, res.Fallback)
			}
			if err := checkSegments(src, res, true); err != nil {
				t.Fatalf("%s, %d comments: %v", tc.language, n, err)
			}
			if !hasSymbol(res, tc.symbol) {
				t.Errorf("%s, %d comments: no segment %s", tc.language, n, tc.symbol)
			}
			if want := tc.perComment*n + 32; p.steps < n || p.steps > want {
				t.Errorf("%s, %d comments: %d steps, want %d to %d", tc.language, n, p.steps, n, want)
			}
		}
	}
}

func hasSymbol(res Result, name string) bool {
	for _, s := range res.Segments {
		if s.Name == name {
			return true
		}
	}
	return false
}

// TestWalkOverBudget proves a file whose tree takes more than the walk's
// budget is indexed as text windows, saying why, and one within it as code.
func TestWalkOverBudget(t *testing.T) {
	p := NewParsers()
	defer p.Close()
	p.budget = 500
	file := func(n int) []byte {
		return []byte("package p\n\n" + strings.Repeat("//x\n", n) + "\nfunc F() {}\n")
	}
	res := File(context.Background(), p, lang.Go, lang.SrcCode, file(400))
	if res.Fallback != "" || !hasSymbol(res, "F") {
		t.Fatalf("within the budget: fallback %q, segments %+v", res.Fallback, locs(res.Segments))
	}
	src := file(600)
	res = File(context.Background(), p, lang.Go, lang.SrcCode, src)
	if res.Fallback != "over 500 syntax nodes to walk" {
		t.Errorf("over the budget: fallback %q", res.Fallback)
	}
	if len(res.Segments) == 0 || len(res.Symbols) != 0 || len(res.Imports) != 0 {
		t.Fatalf("over the budget: %d segments, %d symbols, %d imports", len(res.Segments), len(res.Symbols), len(res.Imports))
	}
	for _, s := range res.Segments {
		if s.Kind != Window {
			t.Errorf("over the budget: a %s segment %q", s.Kind, s.Name)
		}
	}
	if err := checkSegments(src, res, true); err != nil {
		t.Error(err)
	}
}
