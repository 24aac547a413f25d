package segment

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/grammar"
	"github.com/dossierhq/dossier/index/lang"
)

// want is the locator of one expected segment.
type want struct {
	kind       Kind
	name       string
	parents    []string
	start, end int
	outline    bool
}

func ps(names ...string) []string { return names }

// fixtures lists, for every testdata/sample file, the exact segments and
// imports the segmenter must produce.
var fixtures = []struct {
	file, language string
	imports        []string
	segs           []want
}{
	{file: "sample.go", language: lang.Go, imports: []string{"errors", "math"}, segs: []want{
		{TopLevel, "", nil, 1, 10, false},
		{Interface, "Shape", nil, 12, 15, false},
		{Struct, "Circle", nil, 17, 20, false},
		{Method, "Area", ps("Circle"), 22, 25, false},
		{Struct, "Point", nil, 28, 29, false},
		{TypeDef, "Meters", nil, 30, 31, false},
		{Function, "Total", nil, 34, 45, false},
		{TopLevel, "", nil, 47, 48, false},
		{Function, "scaled", nil, 49, 49, false},
		{Method, "String", ps("Point"), 51, 51, false},
	}},
	{file: "sample.py", language: lang.Python, imports: []string{"os", "json", "collections"}, segs: []want{
		{TopLevel, "", nil, 1, 6, false},
		{Function, "load", nil, 9, 12, false},
		{Class, "Inventory", nil, 15, 29, true},
		{Method, "__init__", ps("Inventory"), 20, 21, false},
		{Method, "size", ps("Inventory"), 23, 25, false},
		{Class, "Item", ps("Inventory"), 27, 29, true},
		{Method, "label", ps("Inventory", "Item"), 28, 29, false},
		{Function, "helper", nil, 32, 34, false},
	}},
	{file: "sample.js", language: lang.JavaScript, imports: []string{"fs", "./path-utils.js"}, segs: []want{
		{Imports, "", nil, 1, 2, false},
		{Function, "readText", nil, 4, 7, false},
		{Class, "Cache", nil, 9, 19, true},
		{Method, "get", ps("Cache"), 12, 14, false},
		{Method, "set", ps("Cache"), 16, 18, false},
		{Function, "double", nil, 21, 22, false},
		{Function, "triple", nil, 24, 26, false},
		{Class, "Store", nil, 28, 32, true},
		{Method, "load", ps("Store"), 29, 31, false},
		{TopLevel, "", nil, 34, 34, false},
	}},
	{file: "sample.ts", language: lang.TypeScript, imports: []string{"events"}, segs: []want{
		{Imports, "", nil, 1, 1, false},
		{Interface, "User", nil, 3, 8, false},
		{TypeDef, "UserId", nil, 10, 10, false},
		{Enum, "Role", nil, 12, 15, false},
		{Function, "check", ps("Auth"), 18, 20, false},
		{Class, "Service", nil, 23, 29, true},
		{Method, "add", ps("Service"), 26, 28, false},
		{Function, "find", nil, 31, 31, false},
		{Function, "main", nil, 33, 35, false},
	}},
	{file: "sample.tsx", language: lang.TSX, imports: []string{"react"}, segs: []want{
		{Imports, "", nil, 1, 1, false},
		{TypeDef, "Props", nil, 3, 3, false},
		{Function, "Title", nil, 5, 8, false},
		{Function, "Badge", nil, 10, 10, false},
		{Class, "Panel", nil, 12, 16, true},
		{Method, "render", ps("Panel"), 13, 15, false},
	}},
	{file: "sample.rs", language: lang.Rust, imports: []string{"std::fmt", "std::collections::HashMap"}, segs: []want{
		{Imports, "", nil, 1, 3, false},
		{Struct, "Point", nil, 5, 10, false},
		{Trait, "Draw", nil, 12, 18, true},
		{Method, "name", ps("Draw"), 15, 17, false},
		{Impl, "Point", nil, 20, 26, true},
		{Method, "new", ps("Point"), 21, 25, false},
		{Impl, "Point", nil, 28, 32, true},
		{Method, "fmt", ps("Point"), 29, 31, false},
		{Enum, "Shape", nil, 34, 37, false},
		{TypeDef, "Registry", nil, 39, 39, false},
		{Function, "clamp", ps("util"), 42, 44, false},
		{Function, "main", nil, 47, 49, false},
	}},
	{file: "Sample.java", language: lang.Java, imports: []string{"java.util.ArrayList", "java.util.List"}, segs: []want{
		{Imports, "", nil, 1, 4, false},
		{Class, "Zoo", nil, 6, 29, true},
		{Method, "Zoo", ps("Zoo"), 12, 14, false},
		{Method, "add", ps("Zoo"), 16, 18, false},
		{Interface, "Keeper", ps("Zoo"), 20, 22, false},
		{Class, "Cage", ps("Zoo"), 24, 28, true},
		{Method, "size", ps("Zoo", "Cage"), 25, 27, false},
		{Enum, "Diet", nil, 31, 34, false},
	}},
	{file: "sample.c", language: lang.C, imports: []string{"stdio.h", "list.h"}, segs: []want{
		{TopLevel, "", nil, 1, 4, false},
		{Struct, "node_t", nil, 6, 10, false},
		{Struct, "pair", nil, 12, 15, false},
		{Enum, "color", nil, 17, 17, false},
		{Function, "length", nil, 19, 27, false},
		{Function, "print", nil, 30, 32, false},
		{TopLevel, "", nil, 33, 33, false},
	}},
	{file: "sample.cpp", language: lang.CPP, imports: []string{"string", "vector"}, segs: []want{
		{Imports, "", nil, 1, 2, false},
		{Class, "Vec", ps("geo"), 6, 15, true},
		{Method, "Vec", ps("geo", "Vec"), 9, 9, false},
		{Method, "length", ps("geo", "Vec"), 17, 19, false},
		{Function, "maxOf", ps("geo"), 21, 24, false},
		{Struct, "Box", ps("geo"), 26, 29, false},
		{TopLevel, "", nil, 31, 31, false},
		{Function, "main", nil, 33, 36, false},
	}},
	{file: "Sample.cs", language: lang.CSharp, imports: []string{"System", "System.Collections.Generic"}, segs: []want{
		{Imports, "", nil, 1, 2, false},
		{Class, "Order", ps("Shop.Orders"), 6, 22, true},
		{Method, "Order", ps("Shop.Orders", "Order"), 13, 16, false},
		{Method, "Add", ps("Shop.Orders", "Order"), 18, 21, false},
		{Interface, "IRepository", ps("Shop.Orders"), 24, 27, false},
		{Enum, "Status", ps("Shop.Orders"), 29, 29, false},
	}},
	{file: "sample.php", language: lang.PHP, imports: []string{"App\\Models\\Invoice", "Psr\\Log\\LoggerInterface"}, segs: []want{
		{Imports, "", nil, 1, 6, false},
		{Function, "format_amount", nil, 8, 14, false},
		{Interface, "Payable", nil, 16, 19, false},
		{Class, "Biller", nil, 21, 35, true},
		{Method, "__construct", ps("Biller"), 25, 28, false},
		{Method, "pay", ps("Biller"), 30, 34, false},
	}},
	{file: "sample.rb", language: lang.Ruby, imports: []string{"json", "helpers"}, segs: []want{
		{Imports, "", nil, 1, 2, false},
		{Module, "Kitchen", nil, 4, 19, true},
		{Class, "Recipe", ps("Kitchen"), 6, 18, true},
		{Method, "initialize", ps("Kitchen", "Recipe"), 10, 12, false},
		{Method, "self.parse", ps("Kitchen", "Recipe"), 14, 17, false},
		{Function, "greet", nil, 21, 23, false},
	}},
	{file: "sample.sh", language: lang.Bash, imports: []string{"./lib/common.sh", "$HOME/.profile"}, segs: []want{
		{TopLevel, "", nil, 1, 5, false},
		{Function, "usage", nil, 7, 10, false},
		{Function, "build", nil, 12, 14, false},
		{TopLevel, "", nil, 16, 17, false},
	}},
}

// readFixture segments testdata/file as language.
func readFixture(t *testing.T, p *Parsers, file, language string) ([]byte, Result) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return src, File(t.Context(), p, language, lang.SrcCode, src)
}

func TestFixtures(t *testing.T) {
	p := NewParsers()
	defer p.Close()
	for _, fx := range fixtures {
		t.Run(fx.file, func(t *testing.T) {
			if got := lang.Detect(fx.file, nil); got != fx.language {
				t.Fatalf("Detect(%q) = %q, want %q", fx.file, got, fx.language)
			}
			src, res := readFixture(t, p, fx.file, fx.language)
			if res.ParseError || res.Fallback != "" {
				t.Errorf("ParseError=%v Fallback=%q, want a clean parse", res.ParseError, res.Fallback)
			}
			if !reflect.DeepEqual(res.Imports, fx.imports) {
				t.Errorf("imports = %q, want %q", res.Imports, fx.imports)
			}
			var got []want
			for _, s := range res.Segments {
				got = append(got, want{s.Kind, s.Name, s.Parents, s.StartLine, s.EndLine, s.Outline})
				if s.Part != 1 || s.Parts != 1 {
					t.Errorf("%s %q: part %d/%d, want 1/1", s.Kind, s.Name, s.Part, s.Parts)
				}
			}
			for i := 0; i < max(len(got), len(fx.segs)); i++ {
				var g, w want
				if i < len(got) {
					g = got[i]
				}
				if i < len(fx.segs) {
					w = fx.segs[i]
				}
				if !reflect.DeepEqual(g, w) {
					t.Errorf("segment %d:\n got %+v\nwant %+v", i, g, w)
				}
			}
			if err := checkSegments(src, res, true); err != nil {
				t.Error(err)
			}
		})
	}
}

// find returns the segment of kind named name (the first when repeated).
func find(t *testing.T, res Result, kind Kind, name string) Segment {
	t.Helper()
	for _, s := range res.Segments {
		if s.Kind == kind && s.Name == name {
			return s
		}
	}
	t.Fatalf("no %s %q in %d segments", kind, name, len(res.Segments))
	return Segment{}
}

// TestOutlines checks that outlines keep headers, fields and member
// signatures but replace member bodies with the language's marker.
func TestOutlines(t *testing.T) {
	tests := []struct {
		file, language string
		kind           Kind
		name, elide    string
		has, hasNot    []string
	}{
		{"sample.py", lang.Python, Class, "Inventory", "...",
			[]string{"class Inventory:", `"""A set of items."""`, `kind = "store"`, "def __init__(self, items):", "@property\n    def size(self):", "class Item:"},
			[]string{"OrderedDict(items)", "len(self.items)", "def label"}},
		{"sample.py", lang.Python, Class, "Item", "...", []string{"class Item:\n        def label(self):\n            ..."}, []string{`"item"`}},
		{"sample.js", lang.JavaScript, Class, "Cache", "{ … }", []string{"export class Cache {", "size = 0;", "get(key) { … }", "set(key, value) { … }"}, []string{"this.map"}},
		{"sample.js", lang.JavaScript, Class, "Store", "{ … }", []string{"export default class Store {", "load() { … }"}, []string{"readText"}},
		{"sample.ts", lang.TypeScript, Class, "Service", "{ … }", []string{"extends EventEmitter {", "private users: User[] = [];", "add(u: User): void { … }"}, []string{"push"}},
		{"sample.tsx", lang.TSX, Class, "Panel", "{ … }", []string{"render() { … }"}, []string{"<div>"}},
		{"sample.rs", lang.Rust, Trait, "Draw", "{ … }", []string{"/// Things that can be drawn.", "fn draw(&self) -> String;", "fn name(&self) -> &str { … }"}, []string{`"shape"`}},
		{"sample.rs", lang.Rust, Impl, "Point", "{ … }", []string{"impl Point {", "/// Creates a point.\n    #[inline]\n    pub fn new(x: f64, y: f64) -> Self { … }"}, []string{"Point { x, y }"}},
		{"Sample.java", lang.Java, Class, "Zoo", "{ … }",
			[]string{"public class Zoo {", "private final List<String> animals", "public Zoo() { … }", "public void add(String name) { … }", "public interface Keeper { … }", "static class Cage { … }"},
			[]string{"animals.add(name)", "void feed", "return 4"}},
		{"Sample.java", lang.Java, Class, "Cage", "{ … }", []string{"int size() { … }"}, []string{"return 4"}},
		{"sample.cpp", lang.CPP, Class, "Vec", "{ … }", []string{"public:", "Vec(double x, double y) : x_(x), y_(y) { … }", "double length() const;", "double y_;"}, []string{"{}"}},
		{"Sample.cs", lang.CSharp, Class, "Order", "{ … }", []string{"public int Id { get; set; }", "public Order(int id)\n        { … }", "public void Add(string item)\n        { … }"}, []string{"Id = id", "items.Add(item)"}},
		{"sample.php", lang.PHP, Class, "Biller", "{ … }", []string{"private LoggerInterface $log;", "public function __construct(LoggerInterface $log)\n    { … }", "public function pay(): bool\n    { … }"}, []string{"$this->log"}},
		{"sample.rb", lang.Ruby, Module, "Kitchen", "# …", []string{"module Kitchen", "# A recipe with steps.\n  class Recipe\n    # …\n  end"}, []string{"attr_reader", "def initialize"}},
		{"sample.rb", lang.Ruby, Class, "Recipe", "# …", []string{"attr_reader :name", "def initialize(name)\n      # …\n    end", "def self.parse(text)"}, []string{"@name = name", "JSON.parse"}},
	}
	p := NewParsers()
	defer p.Close()
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.name, func(t *testing.T) {
			src, res := readFixture(t, p, tt.file, tt.language)
			s := find(t, res, tt.kind, tt.name)
			if !s.Outline || !strings.Contains(s.Text, tt.elide) {
				t.Fatalf("Outline=%v, text lacks %q:\n%s", s.Outline, tt.elide, s.Text)
			}
			if s.Text == string(src[s.StartByte:s.EndByte]) {
				t.Errorf("outline equals the verbatim span")
			}
			for _, h := range tt.has {
				if !strings.Contains(s.Text, h) {
					t.Errorf("outline lacks %q:\n%s", h, s.Text)
				}
			}
			for _, h := range tt.hasNot {
				if strings.Contains(s.Text, h) {
					t.Errorf("outline has body text %q:\n%s", h, s.Text)
				}
			}
		})
	}
}

// TestDocsAndSignatures checks that doc comments (and docstrings) land in
// Doc and in the span, and that attributes and trailing comments do not.
func TestDocsAndSignatures(t *testing.T) {
	tests := []struct {
		file, language string
		kind           Kind
		name, doc, sig string
	}{
		{"sample.go", lang.Go, Method, "Area", "// Area returns the area of the circle.", "func (c *Circle) Area() float64"},
		{"sample.go", lang.Go, Struct, "Point", "// Point is a position.", "Point struct{ X, Y float64 }"},
		{"sample.go", lang.Go, TypeDef, "Meters", "// Meters is a length.", "Meters float64"},
		{"sample.go", lang.Go, Function, "scaled", "", "func scaled(a float64) float64"},
		{"sample.py", lang.Python, Function, "load", `"""Load an inventory file."""`, "def load(path)"},
		{"sample.py", lang.Python, Class, "Inventory", `"""A set of items."""`, "class Inventory"},
		{"sample.js", lang.JavaScript, Function, "readText", "/** Reads a file as text. */", "function readText(name)"},
		{"sample.js", lang.JavaScript, Function, "double", "// Doubles a number.", "const double = (n) =>"},
		{"sample.ts", lang.TypeScript, Interface, "User", "/** A user record. */", "interface User"},
		{"sample.tsx", lang.TSX, Function, "Title", "/** Renders a heading. */", "function Title({ title }: Props)"},
		{"sample.rs", lang.Rust, Struct, "Point", "/// A point in the plane.", "pub struct Point"},
		{"sample.rs", lang.Rust, Method, "new", "/// Creates a point.", "pub fn new(x: f64, y: f64) -> Self"},
		{"Sample.java", lang.Java, Class, "Zoo", "/** * A zoo with animals. */", "public class Zoo"},
		{"Sample.java", lang.Java, Method, "Zoo", "/** Creates an empty zoo. */", "public Zoo()"},
		{"sample.c", lang.C, Struct, "node_t", "/* A node in a list. */", "typedef struct node"},
		{"sample.c", lang.C, Function, "length", "/* Returns the length of a list. */", "int length(const node_t *n)"},
		{"sample.cpp", lang.CPP, Method, "length", "", "double Vec::length() const"},
		{"sample.cpp", lang.CPP, Function, "maxOf", "", "T maxOf(T a, T b)"},
		{"Sample.cs", lang.CSharp, Class, "Order", "/// <summary>An order line.</summary>", "public class Order"},
		{"sample.php", lang.PHP, Function, "format_amount", "/** * Formats an amount. */", "function format_amount(int $cents): string"},
		{"sample.rb", lang.Ruby, Module, "Kitchen", "# Tools for parsing recipes.", "module Kitchen"},
		{"sample.rb", lang.Ruby, Class, "Recipe", "# A recipe with steps.", "class Recipe"},
		{"sample.rb", lang.Ruby, Method, "self.parse", "# Parses JSON into a recipe.", "def self.parse(text)"},
		{"sample.sh", lang.Bash, Function, "usage", "# Prints usage.", "usage()"},
	}
	p := NewParsers()
	defer p.Close()
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.name, func(t *testing.T) {
			src, res := readFixture(t, p, tt.file, tt.language)
			s := find(t, res, tt.kind, tt.name)
			if s.Doc != tt.doc || s.Signature != tt.sig {
				t.Errorf("Doc=%q Signature=%q\nwant Doc=%q Signature=%q", s.Doc, s.Signature, tt.doc, tt.sig)
			}
			// A doc comment above the definition starts its span.
			if first := strings.SplitN(tt.doc, "\n", 2)[0]; tt.doc != "" && !strings.HasPrefix(tt.doc, `"""`) &&
				!strings.HasPrefix(string(src[s.StartByte:]), strings.Fields(first)[0]) {
				t.Errorf("span does not start with the doc comment: %q", s.Text[:min(len(s.Text), 40)])
			}
		})
	}
}

// TestEverySpecHasAGrammar: the chunker parses every language it has a
// spec for with the shared grammar table.
func TestEverySpecHasAGrammar(t *testing.T) {
	for language := range specs {
		if !grammar.Has(language) {
			t.Errorf("%s has a chunker spec but no grammar", language)
		}
	}
}
