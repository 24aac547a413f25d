package xref

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const goSrc = `// Package ui is the app's UI.
package ui

import (
	"fmt"
	u "net/url"
	. "strings"
	_ "embed"

	tea "github.com/charmbracelet/bubbletea"
)

// Status codes: StatusNotFound() in a comment is no call.
const StatusNotFound, StatusOK = 404, 200

var defaultPager = pagerModel{}

type pagerModel struct {
	Base
	stash  stashModel
	items  []*item
	byName map[string]item
}

type Store interface {
	fmt.Stringer
	Get(key string) (item, error)
}

type names []item

func newPager() *pagerModel { return &pagerModel{} }

func (m *pagerModel) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m.stash.update(msg)
	x := stashModel{}
	x.view()
	p := newPager()
	p.render()
	link, err := u.Parse("https://x")
	_ = link.String()
	fmt.Println("update()", err)
	for _, it := range m.items {
		it.open()
	}
	for k, it := range m.byName {
		it.open()
		_ = k
	}
	var s Store
	v, _ := s.Get("k")
	v.open()
	f := func() { helper() }
	f()
	helper := 3
	_ = helper
	_ = ToUpper("x")
	switch y := msg.(type) {
	case *item:
		y.open()
	}
	return nil, nil
}

func (n names) first() { n[0].open() }
`

// refsOf renders the references of f compactly: name/via/qual/chain@line.
func refsOf(f *File, src string, calls bool) []string {
	var out []string
	for _, r := range f.Refs {
		if calls && !r.Call {
			continue
		}
		s := fmt.Sprintf("%s %s", r.Name, r.Via)
		if r.Qual != "" {
			s += " " + r.Qual
		}
		if len(r.Chain) > 0 {
			s += " [" + strings.Join(r.Chain, " ") + "]"
		}
		out = append(out, fmt.Sprintf("%s @%d", s, strings.Count(src[:r.Start], "\n")+1))
	}
	return out
}

func TestGoCalls(t *testing.T) {
	f, err := Parse("go", []byte(goSrc))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"pagerModel bare @16",
		"pagerModel bare @32",
		"update type pagerModel [stash] @35",
		"stashModel bare @36",
		"view type stashModel @37",
		"newPager bare @38",
		"render bare [newPager] @39",
		"Parse package u @40",
		"String package u [Parse] @41",
		"Println package fmt @42",
		"open type pagerModel [items] @44", // the element of the field's slice
		"open type pagerModel [byName] @47",
		"Get type Store @51",
		"open type Store [Get] @52",
		"helper bare @53", // in the closure, before the local helper
		"ToUpper bare @57",
		"open type item @60",
		"open type names @65", // the resolver goes on to the element, item
	}
	if got := refsOf(f, goSrc, true); !slices.Equal(got, want) {
		t.Errorf("calls:\n got  %q\n want %q", got, want)
	}
}

func TestGoDefs(t *testing.T) {
	f, err := Parse("go", []byte(goSrc))
	if err != nil {
		t.Fatal(err)
	}
	if f.Package != "ui" {
		t.Errorf("package %q", f.Package)
	}
	var imps []string
	for _, i := range f.Imports {
		imps = append(imps, i.Local+"="+i.Spec)
	}
	if want := []string{"fmt=fmt", "u=net/url", ".=strings", "=embed", "tea=github.com/charmbracelet/bubbletea"}; !slices.Equal(imps, want) {
		t.Errorf("imports %q, want %q", imps, want)
	}
	var defs []string
	for _, d := range f.Defs {
		s := d.Kind + " " + d.Name
		if d.Container != "" {
			s += " in " + d.Container
		}
		if d.Type != "" {
			s += " : " + d.Type
		}
		if len(d.Bases) > 0 {
			s += " < " + strings.Join(d.Bases, ",")
		}
		defs = append(defs, s)
	}
	want := []string{
		"const StatusNotFound", "const StatusOK", "var defaultPager : pagerModel",
		"struct pagerModel < Base", "field Base in pagerModel : Base", "field stash in pagerModel : stashModel",
		"field items in pagerModel : item", "field byName in pagerModel : item",
		"interface Store < fmt.Stringer", "method Get in Store : item",
		"type names : item", "function newPager : pagerModel", "method update in pagerModel : tea.Model",
		"method first in names",
	}
	if !slices.Equal(defs, want) {
		t.Errorf("defs:\n got  %q\n want %q", defs, want)
	}
}

// TestGoNotRefs: comments, strings, the package clause and the names of
// definitions are never references.
func TestGoNotRefs(t *testing.T) {
	f, err := Parse("go", []byte(goSrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range f.Refs {
		line := strings.Count(goSrc[:r.Start], "\n") + 1
		switch {
		case r.Name == "ui", r.Name == "StatusNotFound", r.Name == "newPager" && line == 30:
			t.Errorf("%s at line %d is a reference", r.Name, line)
		case r.Name == "update" && line != 35:
			t.Errorf("update at line %d is a reference", line)
		}
		for _, d := range f.Defs {
			// An embedded field's name is its type's, a reference.
			if d.NameStart == r.Start && !(d.Kind == "field" && d.Type == d.Name) {
				t.Errorf("the definition of %s is a reference", d.Name)
			}
		}
	}
}

func FuzzGo(f *testing.F) {
	f.Add([]byte(goSrc))
	f.Add([]byte("package p\nfunc (x *T[) m() { x.y.z()( }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		x, err := Parse("go", src)
		if err != nil {
			return
		}
		for _, r := range x.Refs {
			if r.Start < 0 || r.Start > len(src) || r.In >= len(x.Defs) {
				t.Fatalf("ref %+v out of range", r)
			}
		}
	})
}

// TestGoGenericCall: F[T](x) parses as a conversion; it is a call of F,
// and its value is F's result.
func TestGoGenericCall(t *testing.T) {
	src := "package p\n\nfunc f() {\n\tv, err := ParseValue[uint](x)\n\tv.Check()\n\t_ = List[int](nil)\n}\n"
	x, err := Parse("go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"ParseValue bare @4", "Check bare [ParseValue] @5", "List bare @6"}
	if got := refsOf(x, src, true); !slices.Equal(got, want) {
		t.Errorf("calls:\n got  %q\n want %q", got, want)
	}
}

func TestGoImportName(t *testing.T) {
	for spec, want := range map[string]string{
		"net/http": "http", "github.com/a/b/v2": "b", "gopkg.in/yaml.v3": "yaml",
		"github.com/x/go-toml": "toml", "github.com/x/kin-openapi": "kinopenapi",
	} {
		if got := GoImportName(spec); got != want {
			t.Errorf("%s: %q, want %q", spec, got, want)
		}
	}
}
