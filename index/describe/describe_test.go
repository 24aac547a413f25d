package describe

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/segment"
	"github.com/dossierhq/dossier/store"
)

type fake struct{ name string }

func (f fake) Name() string        { return f.name }
func (f fake) Description() string { return "test describer " + f.name }
func (f fake) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	return single{base(f.name, fc, seg, "k", "finder")}, true
}

func TestRegistryRules(t *testing.T) {
	r := NewRegistry()
	if err := r.Register(segment.Function, fake{"a"}); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(segment.Function, fake{"b"}); err != nil {
		t.Fatalf("a second describer for a kind: %v", err)
	}
	if err := r.Register(segment.Method, fake{"a"}); err != nil {
		t.Fatalf("one describer for a second kind: %v", err)
	}
	err := r.Register(segment.Function, fake{"a"})
	if err == nil || !strings.Contains(err.Error(), `"a" is already registered for kind "function"`) {
		t.Errorf("duplicate pair: err = %v", err)
	}
	var names []string
	for _, d := range r.Describers(segment.Function) {
		names = append(names, d.Name())
	}
	if !reflect.DeepEqual(names, []string{"a", "b"}) {
		t.Errorf("describers in registration order: %v", names)
	}
	if got := r.Describers(segment.Class); len(got) != 0 {
		t.Errorf("unregistered kind has describers: %v", got)
	}
	if !reflect.DeepEqual(r.Kinds(), []segment.Kind{segment.Function, segment.Method}) {
		t.Errorf("Kinds = %v", r.Kinds())
	}
}

// Every kind the segmenter emits has exactly one applicable built-in
// describer for ordinary and for test code.
func TestDefaultRegistryCoversEveryKind(t *testing.T) {
	r := Default()
	kinds := append(append([]segment.Kind(nil), codeKinds...), segment.Section, segment.ConfigKey, segment.Window)
	for _, k := range kinds {
		for _, src := range []string{lang.SrcCode, lang.SrcTest} {
			fc := &FileContext{Path: "x", SourceType: src}
			seg := segment.Segment{Kind: k, Name: "TestThing", Part: 1, Parts: 1}
			n := 0
			for _, d := range r.Describers(k) {
				if _, ok := d.Describe(fc, seg); ok {
					n++
				}
			}
			if n != 1 {
				t.Errorf("kind %s in %s file: %d describers apply, want 1", k, src, n)
			}
		}
	}
}

func sample() (*FileContext, []segment.Segment) {
	src := "package cart\n\n// Add adds.\nfunc Add() {}\n\nfunc add() {}\n\nfunc Add() {}\n"
	fc := &FileContext{Path: "cart/cart.go", Language: "go", SourceType: lang.SrcCode, Contents: []byte(src),
		Repo: store.Repo{Name: "Shop"}}
	segs := []segment.Segment{
		{Kind: segment.Imports, Text: "package cart", StartLine: 1, EndLine: 1, EndByte: 12, Part: 1, Parts: 1},
		{Kind: segment.Function, Name: "Add", Doc: "// Add adds.", Signature: "func Add()", Text: "// Add adds.\nfunc Add() {}", StartLine: 3, EndLine: 4, StartByte: 14, EndByte: 41, Part: 1, Parts: 1},
		{Kind: segment.Function, Name: "add", Text: "func add() {}", StartLine: 6, EndLine: 6, StartByte: 43, EndByte: 56, Part: 1, Parts: 1},
		{Kind: segment.Function, Name: "Add", Text: "func Add() {}", StartLine: 8, EndLine: 8, StartByte: 58, EndByte: 71, Part: 1, Parts: 1},
	}
	return fc, segs
}

func TestPointsAreDeterministicAndUnique(t *testing.T) {
	fc, segs := sample()
	r := Default()
	a, problems := Points(fc, sectionsOf(t, r, fc, segs))
	if problems != nil {
		t.Fatal(problems)
	}
	b, _ := Points(fc, sectionsOf(t, r, fc, segs))
	if !reflect.DeepEqual(a, b) {
		t.Error("the same segments gave different chunks")
	}
	want := []string{
		"shop:cart/cart.go:imports:top-1:imports:1",
		"shop:cart/cart.go:function:add:body:1",
		"shop:cart/cart.go:function:add~2:body:1",
		"shop:cart/cart.go:function:add~3:body:1",
	}
	ids := map[string]bool{}
	for i, c := range a {
		if c.SemanticID != want[i] {
			t.Errorf("chunk %d: sid %q, want %q", i, c.SemanticID, want[i])
		}
		if err := ValidateSemanticID(c.SemanticID); err != nil {
			t.Error(err)
		}
		if ids[c.ID] || !strings.HasPrefix(c.ID, "c"+store.PathHash(fc.Path)) || len(c.ID) != 19 {
			t.Errorf("chunk id %q duplicate or malformed", c.ID)
		}
		ids[c.ID] = true
	}
	if a[1].Title() != "function: Add - body (Chunk 1 of 1)" {
		t.Errorf("title = %q", a[1].Title())
	}
	if !strings.Contains(a[1].Finder, "doc: // Add adds.") || !strings.Contains(a[1].Finder, "signature: func Add()") {
		t.Errorf("finder = %q", a[1].Finder)
	}
	// Ids hash the unit, not its text: an edited body keeps its id.
	segs[1].Text = "// Add adds.\nfunc Add() { println() }"
	c, _ := Points(fc, sectionsOf(t, r, fc, segs))
	if c[1].ID != a[1].ID || c[1].Hash == a[1].Hash {
		t.Errorf("edit: id %s→%s, hash changed %v", a[1].ID, c[1].ID, c[1].Hash != a[1].Hash)
	}
}

// A describer that emits the same section twice is a programming error:
// it costs that section, reported with its line, never the file's others.
func TestDuplicateSectionIsDroppedAndReported(t *testing.T) {
	fc, segs := sample()
	secs := sectionsOf(t, Default(), fc, segs[:2])
	secs = append(secs, secs[1])
	chunks, problems := Points(fc, secs)
	if len(chunks) != 2 || len(problems) != 1 || !strings.Contains(problems[0].Err, "duplicate chunk id") ||
		problems[0].Line != secs[1].StartLine || problems[0].Describer != secs[1].Describer {
		t.Errorf("chunks = %d, problems = %+v", len(chunks), problems)
	}
}

// broken is a describer with a bug: it panics on every segment.
type broken struct{}

func (broken) Name() string        { return "broken" }
func (broken) Description() string { return "a describer that panics" }
func (broken) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	var facts []string
	return single{base("broken", fc, seg, facts[seg.Part], "")}, true
}

// A describer that fails on a segment costs its sections of it, reported
// with the segment's line; the describers after it still describe it.
func TestFailingDescriberCostsItsSections(t *testing.T) {
	fc, segs := sample()
	r := NewRegistry()
	for _, d := range []Describer{broken{}, codeDescriber{}} {
		if err := r.Register(segment.Function, d); err != nil {
			t.Fatal(err)
		}
	}
	secs, problems := r.Describe(fc, segs[1:2])
	if len(secs) != 1 || secs[0].Describer != "code" || len(problems) != 1 || problems[0].Line != segs[1].StartLine ||
		problems[0].Describer != "broken" || !strings.Contains(problems[0].Err, `describer "broken" failed on function "Add": runtime error: index out of range`) {
		t.Errorf("sections %+v, problems %+v", secs, problems)
	}
}

// sectionsOf is r's sections of segs, which no describer fails on.
func sectionsOf(t *testing.T, r *Registry, fc *FileContext, segs []segment.Segment) []Section {
	t.Helper()
	secs, problems := r.Describe(fc, segs)
	if problems != nil {
		t.Fatalf("describers failed: %+v", problems)
	}
	return secs
}

func TestTestDescriber(t *testing.T) {
	fc := &FileContext{Path: "cart/cart_test.go", Language: "go", SourceType: lang.SrcTest}
	secs := sectionsOf(t, Default(), fc, []segment.Segment{{Kind: segment.Function, Name: "TestAdd", Part: 1, Parts: 1},
		{Kind: segment.Function, Name: "helper", Part: 1, Parts: 1}})
	if len(secs) != 2 || secs[0].Describer != "test" || secs[0].Flavor != "test" || !strings.Contains(secs[0].Finder, "tests: Add") || secs[1].Describer != "code" {
		t.Errorf("sections = %+v", secs)
	}
}

func TestValidateSemanticID(t *testing.T) {
	for sid, ok := range map[string]bool{
		"r:a.go:function:f:body:1": true,
		"r:a.go:function::body:1":  false,
		":a.go:function:f:body:1":  false,
		"r:a.go:function:f:body:":  false,
		"r:A.go:function:f:body:1": false,
		"r:a b.go:function:f:b:1":  false,
	} {
		if err := ValidateSemanticID(sid); (err == nil) != ok {
			t.Errorf("ValidateSemanticID(%q) = %v", sid, err)
		}
	}
	if got := sidPart("  Foo::Bar Baz "); got != "foo_bar_baz" {
		t.Errorf("sidPart = %q", got)
	}
	if got := sidPart("_DnsQuery"); got != "_dnsquery" {
		t.Errorf("sidPart keeps underscores: %q", got)
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb  \r\n":    "a\nb",
		"x\t\ny\n\n\n":    "x\ny",
		"clean\ntext":     "clean\ntext",
		"":                "",
		"trailing space ": "trailing space",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSymbols(t *testing.T) {
	chunks := []store.Chunk{
		{ID: "1", Kind: "method", Symbol: "Add", Parents: []string{"Cart"}, Path: "c.go", StartLine: 3, Part: 1},
		{ID: "2", Kind: "method", Symbol: "Add", Parents: []string{"Cart"}, Path: "c.go", StartLine: 90, Part: 2},
		{ID: "3", Kind: "top_level", Path: "c.go", Part: 1},
		{ID: "4", Kind: "markdown_section", Symbol: "Install", Path: "c.go", Part: 1},
	}
	got := Symbols(chunks, nil)
	if len(got) != 1 || got[0].Parent != "Cart" || got[0].Line != 3 || got[0].ChunkID != "1" {
		t.Errorf("Symbols = %+v", got)
	}
}

// A member symbol lands in the smallest chunk that holds its start (a
// promoted constructor parameter in the constructor, not the class
// outline), keeps its own span, and one that no chunk holds is dropped.
func TestSymbolsMembers(t *testing.T) {
	chunks := []store.Chunk{
		{ID: "cls", Kind: "class", Symbol: "Page", Path: "p.php", StartLine: 1, EndLine: 20, StartByte: 0, EndByte: 400, Part: 1},
		{ID: "ctor", Kind: "method", Symbol: "__construct", Parents: []string{"Page"}, Path: "p.php", StartLine: 5, EndLine: 8, StartByte: 100, EndByte: 180, Part: 1},
	}
	members := []segment.Symbol{
		{Name: "title", Kind: segment.Field, Parents: []string{"Page"}, Signature: "private $title;", StartByte: 40, EndByte: 55, StartLine: 3, EndLine: 3},
		{Name: "repo", Kind: segment.Field, Parents: []string{"Page"}, StartByte: 120, EndByte: 140, StartLine: 5, EndLine: 5},
		{Name: "lost", Kind: segment.Const, StartByte: 500, EndByte: 510, StartLine: 30, EndLine: 30},
	}
	got := Symbols(chunks, members)
	if len(got) != 4 {
		t.Fatalf("Symbols = %+v", got)
	}
	title, repo := got[2], got[3]
	if title.ChunkID != "cls" || title.Ordinal != 0 || title.Parent != "Page" || title.Kind != "field" || title.Line != 3 ||
		title.EndLine != 3 || title.StartByte != 40 || title.EndByte != 55 || !title.HasSpan() || title.Path != "p.php" {
		t.Errorf("title = %+v", title)
	}
	if repo.ChunkID != "ctor" || repo.Ordinal != 1 {
		t.Errorf("repo = %+v, want it in the constructor chunk", repo)
	}
	if got[0].HasSpan() {
		t.Errorf("a chunk's own symbol has a span of its own: %+v", got[0])
	}
}

// FuzzValidSIDChars: the byte check is the expression it replaced.
func FuzzValidSIDChars(f *testing.F) {
	for _, s := range []string{"", "a", "go:fmt:print", "A", "a b", "a\tb", "a\vb", "a\fb", "\xff", "é", "É", "x\r"} {
		f.Add(s)
	}
	re := regexp.MustCompile(`^[^A-Z\s]+$`)
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := validSIDChars(s), re.MatchString(s); got != want {
			t.Fatalf("validSIDChars(%q) = %v, the expression says %v", s, got, want)
		}
	})
}
