package repomap

import (
	"slices"
	"testing"

	"github.com/dossierhq/dossier/index/xref"
)

func def(name string) Def { return Def{Name: name, Line: 1, Text: "func " + name + "()"} }

// reached lists the files a file's references lead to.
func reached(g *Graph, from string) []string {
	var out []string
	for _, m := range g.mentions[g.index[from]] {
		for _, f := range g.definers[m.target] {
			out = append(out, g.Files[f])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// A reference through an import reaches the imported package's
// definition, not a same-named one elsewhere; one to a package outside
// the index is no edge; a bare name reaches its own package first.
func TestReferencesResolveByScope(t *testing.T) {
	g := NewGraph(map[string]*File{
		"net/url/url.go":   {Defs: []Def{def("Parse")}},
		"text/parse.go":    {Defs: []Def{def("Parse"), def("helper")}},
		"text/other.go":    {Defs: []Def{def("helper")}},
		"web/handler.go":   {Refs: []Ref{{Name: "Parse", Scope: "net/url", N: 2}, {Name: "Parse", Scope: "github.com/x/y", N: 1}}},
		"text/use.go":      {Refs: []Ref{{Name: "helper", N: 1}}},
		"lib/rel/a.ts":     {Defs: []Def{def("run")}},
		"lib/main.ts":      {Refs: []Ref{{Name: "run", Scope: "./rel/a", N: 1}}},
		"cmd/tool/main.go": {Refs: []Ref{{Name: "helper", N: 1}}},
		"other/h.go":       {Defs: []Def{def("helper")}},
	})
	for from, want := range map[string][]string{
		"web/handler.go":   {"net/url/url.go"},
		"text/use.go":      {"text/other.go", "text/parse.go"},
		"lib/main.ts":      {"lib/rel/a.ts"},
		"cmd/tool/main.go": {"other/h.go", "text/other.go", "text/parse.go"},
	} {
		if got := reached(g, from); !slices.Equal(got, want) {
			t.Errorf("%s reaches %q, want %q", from, got, want)
		}
	}
}

// References come from the parse: a name in a comment or a string is
// none, an import binding gives its spec as the scope.
func TestRefsOfAParse(t *testing.T) {
	src := `package web

import u "net/url"

// Parse in a comment, and BetaThing too.
func Handle() {
	u.Parse("BetaThing")
	helper()
	helper()
}
`
	x, err := xref.Parse("go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Ref{{Name: "Parse", Scope: "net/url", N: 1}, {Name: "helper", N: 2}}
	if got := RefsOf(x); !slices.Equal(got, want) {
		t.Fatalf("refs %+v, want %+v", got, want)
	}
}

// A record reads back as it was written; a damaged one is an error.
func TestRecordRoundTrip(t *testing.T) {
	f := &File{Defs: []Def{{Name: "Parse", Line: 12, Text: "func Parse(s string) (*URL, error)"}},
		Refs: []Ref{{Name: "Errorf", Scope: "fmt", N: 3}, {Name: "x", Scope: Unknown, N: 1}}}
	b := f.Encode()
	got, err := Decode("net/url/url.go", b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Defs[0].Path != "net/url/url.go" || got.Defs[0].Text != f.Defs[0].Text || !slices.Equal(got.Refs, f.Refs) {
		t.Fatalf("read back %+v, wrote %+v", got, f)
	}
	for _, bad := range [][]byte{nil, {9}, b[:len(b)-1], append(slices.Clone(b), 0)} {
		if _, err := Decode("x.go", bad); err == nil {
			t.Errorf("record %v decoded", bad)
		}
	}
}
