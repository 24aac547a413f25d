package xref

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// parseOK parses src as lang and fails the test on an error.
func parseOK(t *testing.T, language, src string) *File {
	t.Helper()
	f, err := Parse(language, []byte(src))
	if err != nil {
		t.Fatalf("parse %s: %v", language, err)
	}
	return f
}

// refString renders a reference for comparison: name, via, qual, chain,
// whether a call, and the line it is on.
func refString(src string, r Ref) string {
	s := fmt.Sprintf("%d %s %s", strings.Count(src[:r.Start], "\n")+1, r.Name, r.Via)
	if r.Qual != "" {
		s += " " + r.Qual
	}
	if len(r.Chain) > 0 {
		s += " [" + strings.Join(r.Chain, ".") + "]"
	}
	if r.Call {
		s += " call"
	}
	return s
}

// wantRefs checks that each of want is among the file's references
// (rendered with refString).
func wantRefs(t *testing.T, src string, f *File, want ...string) {
	t.Helper()
	var got []string
	for _, r := range f.Refs {
		if src[r.Start:r.Start+len(r.Name)] != r.Name && !strings.HasPrefix(r.Name, "__") && !atKeyword(src, r.Start) {
			t.Errorf("ref %s: its offset %d holds %q", r.Name, r.Start, src[r.Start:min(len(src), r.Start+len(r.Name))])
		}
		got = append(got, refString(src, r))
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing ref %q; refs:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

// noRefs checks that no reference is named any of names on line.
func noRefs(t *testing.T, src string, f *File, line int, names ...string) {
	t.Helper()
	for _, r := range f.Refs {
		if strings.Count(src[:r.Start], "\n")+1 == line && slices.Contains(names, r.Name) {
			t.Errorf("unexpected ref %s", refString(src, r))
		}
	}
}

// defString renders a definition: kind Container.Name :Type <Bases>.
func defString(d Def) string {
	s := d.Kind + " " + d.Name
	if d.Container != "" {
		s = d.Kind + " " + d.Container + "." + d.Name
	}
	if d.Type != "" {
		s += " :" + d.Type
	}
	if len(d.Bases) > 0 {
		s += " <" + strings.Join(d.Bases, ",") + ">"
	}
	return s
}

// wantDefs checks the file's definitions, in order, and that each name
// offset holds the name.
func wantDefs(t *testing.T, src string, f *File, want ...string) {
	t.Helper()
	var got []string
	for _, d := range f.Defs {
		got = append(got, defString(d))
		if src[d.NameStart:d.NameStart+len(d.Name)] != d.Name {
			t.Errorf("def %s: name offset %d holds %q", d.Name, d.NameStart, src[d.NameStart:d.NameStart+len(d.Name)])
		}
		if d.Start > d.NameStart || d.End < d.NameStart+len(d.Name) {
			t.Errorf("def %s: span %d-%d misses its name at %d", d.Name, d.Start, d.End, d.NameStart)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("defs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// importStrings renders imports as "Local=Spec:Member@Line".
func importStrings(f *File) []string {
	var out []string
	for _, i := range f.Imports {
		out = append(out, fmt.Sprintf("%s=%s:%s@%d", i.Local, i.Spec, i.Member, i.Line))
	}
	return out
}

// checkIn checks that every reference's In is a definition enclosing it.
func checkIn(t *testing.T, f *File) {
	t.Helper()
	for _, r := range f.Refs {
		if r.In < -1 || r.In >= len(f.Defs) {
			t.Errorf("ref %s: In %d out of range", r.Name, r.In)
			continue
		}
		if r.In >= 0 {
			if d := f.Defs[r.In]; r.Start < d.Start || r.Start >= d.End {
				t.Errorf("ref %s at %d: In %s spans %d-%d", r.Name, r.Start, d.Name, d.Start, d.End)
			}
		}
	}
}

// atKeyword reports whether src holds, at off, a keyword that stands for
// a constructor or a class (super(...), new static).
func atKeyword(src string, off int) bool {
	for _, k := range []string{"super", "this", "static", "self", "parent", "cls", "base", "new"} {
		if strings.HasPrefix(src[off:], k) {
			return true
		}
	}
	return false
}

// moreSources are the test sources of the class-based languages, the
// fuzz targets' seeds.
var moreSources = map[string]string{"php": phpController, "python": pySessions, "java": javaService,
	"csharp": csService, "rust": rustCart, "ruby": rubyOrder, "c": cCart, "cpp": cppCart, "bash": bashDeploy}

// fuzzExtractor checks that lang's extractor never panics and keeps every
// offset inside the source, whatever the bytes.
func fuzzExtractor(f *testing.F, language string) {
	f.Add([]byte(moreSources[language]))
	src := moreSources[language]
	f.Add([]byte(src[:len(src)/2]))
	f.Add([]byte(strings.ReplaceAll(src, "{", "")))
	f.Fuzz(func(t *testing.T, src []byte) {
		x, err := Parse(language, src)
		if err != nil {
			return
		}
		for _, r := range x.Refs {
			if r.Start < 0 || r.Start > len(src) || r.In < -1 || r.In >= len(x.Defs) {
				t.Fatalf("ref %+v out of range", r)
			}
		}
		for _, d := range x.Defs {
			if d.NameStart < 0 || d.NameStart+len(d.Name) > len(src) || d.Start > d.End || d.End > len(src) {
				t.Fatalf("def %+v out of range", d)
			}
		}
	})
}

func FuzzPHP(f *testing.F)    { fuzzExtractor(f, "php") }
func FuzzPython(f *testing.F) { fuzzExtractor(f, "python") }
func FuzzJava(f *testing.F)   { fuzzExtractor(f, "java") }
func FuzzCSharp(f *testing.F) { fuzzExtractor(f, "csharp") }
func FuzzRust(f *testing.F)   { fuzzExtractor(f, "rust") }
func FuzzRuby(f *testing.F)   { fuzzExtractor(f, "ruby") }
func FuzzC(f *testing.F)      { fuzzExtractor(f, "c") }
func FuzzCPP(f *testing.F)    { fuzzExtractor(f, "cpp") }
func FuzzBash(f *testing.F)   { fuzzExtractor(f, "bash") }
