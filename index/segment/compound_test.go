package segment

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/lang"
)

// TestNestedDefinitions checks that definitions the generic rules used to
// miss are chunks of their own: Python's under module-level `if`, `try`
// (every clause) and `with`; Rust's unit and tuple structs; the methods,
// constructors and nested classes of a Java enum with a body; TypeScript's
// overload signatures (in their definition's span), `declare function`s
// and the definitions in `declare global {}`; Ruby's classes without a body
// and methods under a modifier (`def f ... end if cond`);
// Ruby's definitions under `begin`/`rescue`, `if`, `unless` and Bash's under
// `if`/`else` and `case`; C#'s records without a body and operators (named
// as ctags names them); C++ classes and enums declared in a class, friend
// functions and `extern "C"` functions without braces.
func TestNestedDefinitions(t *testing.T) {
	tests := []struct {
		file, language string
		want           []string // "kind Parent.name start-end" of each named segment
	}{
		{"nested/compat.py", lang.Python, []string{
			"function compat 4-5", "function compat 7-8", "function loads 13-14", "class Fallback 16-18",
			"method Fallback.go 17-18", "function fine 20-21", "function done 23-24", "function reader 27-28"}},
		{"nested/ids.rs", lang.Rust, []string{
			"struct Marker 1-2", "struct Id 4-5", "struct Pair 7-7", "struct Full 9-9", "trait Shape 11-13"}},
		{"nested/overloads.ts", lang.TypeScript, []string{
			"function visit 3-10", "function hash 12-12", "interface Window 15-17", "interface Errors 20-24",
			"class Base 26-33", "method Base.partial 28-32"}},
		{"nested/compat.rb", lang.Ruby, []string{
			"class HAMLTest 4-6", "method HAMLTest.a 5-5", "class C 12-23", "method C.assoc 14-16", "method C.other 18-18"}},
		{"nested/compat.sh", lang.Bash, []string{"function f1 2-4", "function f1 6-8", "function f2 11-15", "function f3 17-19",
			"function pick 23-25", "function pick 28-28"}},
		{"nested/errors.rb", lang.Ruby, []string{
			"module M 1-12", "class M.Error 2-3", "class M.Empty 5-5", "class M.Full 7-11", "method M.Full.self.make 8-10",
			"class Rack::Builder 14-16", "class Hash2 18-22", "method Hash2.except 19-21"}},
		{"nested/Sender.cs", lang.CSharp, []string{
			"record Exec 3-3", "class W 5-10", "method W.operator == 9-9", "interface ISender 12-20"}},
		{"nested/iter.cpp", lang.CPP, []string{
			"class ns.ParseResult 2-15", "class ns.ParseResult.Iterator 5-11", "type ns.ParseResult.Iterator.value_type 8-8",
			"method ns.ParseResult.Iterator.next 10-10", "enum ns.ParseResult.Mode 12-12", "method ns.ParseResult.size 13-13"}},
		{"nested/linkage.cpp", lang.CPP, []string{"function fuzz 1-5", "class Approx 7-13", "method Approx.operator == 8-11"}},
		{"nested/Color.java", lang.Java, []string{
			"enum Color 3-21", "method Color.Color 12-12", "method Color.code 14-14", "method Color.parse 16-16",
			"class Color.Helper 18-20", "method Color.Helper.n 19-19"}},
	}
	p := NewParsers()
	defer p.Close()
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			src, res := readFixture(t, p, tt.file, tt.language)
			var got []string
			for _, s := range res.Segments {
				if s.Name != "" {
					got = append(got, fmt.Sprintf("%s %s %d-%d", s.Kind,
						strings.Join(append(append([]string(nil), s.Parents...), s.Name), "."), s.StartLine, s.EndLine))
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("named segments:\n got %q\nwant %q", got, tt.want)
			}
			if err := checkSegments(src, res, true); err != nil {
				t.Error(err)
			}
		})
	}
	// A body-less method (an interface's, Go's too, a trait's) lives in
	// its type's outline and is a symbol of its own.
	for _, tt := range []struct{ file, language, want string }{
		{"nested/Named.java", lang.Java, "method Named.label 4-5"},
		{"nested/Named.java", lang.Java, "method Tag.value 11-11"},
		{"nested/ids.rs", lang.Rust, "method Shape.area 12-12"},
		{"nested/overloads.ts", lang.TypeScript, "method Errors.format 21-23"},
		{"nested/Sender.cs", lang.CSharp, "method ISender.Send 16-18"}, // each overload
		{"nested/Sender.cs", lang.CSharp, "method ISender.Send 19-19"},
		{"nested/overloads.ts", lang.TypeScript, "method Base.run 27-27"},
		{"nested/render.go", lang.Go, "method Renderer.Init 7-8"},
		{"nested/render.go", lang.Go, "method Renderer.Size 10-10"},
	} {
		_, res := readFixture(t, p, tt.file, tt.language)
		var got []string
		for _, s := range res.Symbols {
			got = append(got, fmt.Sprintf("%s %s %d-%d", s.Kind, strings.Join(append(append([]string(nil), s.Parents...), s.Name), "."), s.StartLine, s.EndLine))
		}
		if !slices.Contains(got, tt.want) {
			t.Errorf("%s: symbols %q, want %q among them", tt.file, got, tt.want)
		}
	}
	// The enum's outline elides the bodies its members' chunks hold.
	_, res := readFixture(t, p, "nested/Color.java", lang.Java)
	if s := find(t, res, Enum, "Color"); !s.Outline || strings.Contains(s.Text, "return RED") {
		t.Errorf("enum Color: Outline=%v, want its members' bodies elided:\n%s", s.Outline, s.Text)
	}
	// An `if` without definitions stays one piece of top-level code, and
	// the headers of those with definitions are top-level code.
	_, res = readFixture(t, p, "nested/compat.py", lang.Python)
	var top []string
	for _, s := range res.Segments {
		if s.Kind == TopLevel {
			top = append(top, strings.TrimSpace(s.Text))
		}
	}
	for _, w := range []string{"try:\n    import json", "except ImportError:", "else:", "finally:", `with open("x") as f:`,
		"TIMEOUT = 3\n\nif __name__ == \"__main__\":\n    print(reader())"} {
		if !slices.Contains(top, w) {
			t.Errorf("no top-level chunk %q in %q", w, top)
		}
	}
}
