package related

import (
	"reflect"
	"testing"
)

// sitesOf renders the sites of src: calls as name or qual.name, definitions
// as def:name, decorators as @name.
func sitesOf(fam, src string) []string {
	var out []string
	scanSites([]byte(src), 0, syntaxOf(fam), func(s site) {
		name := s.name
		if s.qualified {
			name = s.qual + "." + name
		}
		switch {
		case s.def:
			name = "def:" + name
		case s.deco:
			name = "@" + name
		}
		out = append(out, name)
	})
	return out
}

func TestScanSites(t *testing.T) {
	for _, c := range []struct {
		fam, src string
		want     []string
	}{
		{"go", "func (s *Server) Serve(l net.Listener) error {\n\treturn s.serve(l) // call(x)\n}", []string{"def:Serve", "s.serve"}},
		{"go", "func Map[T any](xs []T) { go func() { f(\"g()\") }(); x := `h()`; y := 'i'; fmt.Println(x, y) }",
			[]string{"def:Map", "f", "fmt.Println"}},
		{"go", "type I interface {\n\tHeader() Header\n}", []string{"Header"}},
		{"python", "@app.route(\"/\")\ndef f(x):\n    \"\"\"g(x) in a docstring\"\"\"\n    return self.h(x)  # i(x)\nclass C(Base):\n    pass",
			[]string{"@app.route", "def:f", "self.h", "def:C"}},
		{"js", "export function* gen(a) { yield* other(a); }\nconst x = new Calc(); x?.push(`${y}`); [...rest(1)]",
			[]string{"def:gen", "other", "Calc", ".push", "rest"}},
		{"rust", "fn apply<'a>(x: &'a str) -> char { let c = 'x'; helper(c); Self::new(x) }", []string{"def:apply", "helper", "Self.new"}},
		{"c", "static int *make(void);\nint main(void) {\n\treturn a * f(b) + make();\n}", []string{"def:make", "def:main", "f", "make"}},
		{"java", "@Override\npublic List<String> names() { return List.of(a.b()); }\nint[] arr() { throw new Bad(x); }",
			[]string{"def:names", "List.of", "a.b", "def:arr", "Bad"}},
		{"php", "<?php\n# comment f()\n$x = $user->save(); Foo::make(); ", []string{"$user.save", "Foo.make"}},
		{"bash", "greet() { echo ${#arr} $(date); }\n# not(this)\n", []string{"greet"}},
	} {
		if got := sitesOf(c.fam, c.src); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q:\n got  %q\n want %q", c.fam, c.src, got, c.want)
		}
	}
}

func TestPythonNames(t *testing.T) {
	got := pythonNames([]byte("from . import a, b as c  # x\nfrom .m import (\n    d,\n    e,\n)\nfrom x import *\nimport y\n"))
	want := map[string][]string{".": {"a", "b"}, ".m": {"d", "e"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestImportLine(t *testing.T) {
	text := []byte("package x\n\n// see net/http/httptest\nimport (\n\t\"net/http/httptest\"\n\t\"net/http\"\n)\n")
	if got := importLine(text, "net/http"); got != 6 {
		t.Errorf("net/http on line %d, want 6", got)
	}
	if got := importLine(text, "fmt"); got != 0 {
		t.Errorf("missing spec on line %d", got)
	}
}

func TestGoPackageName(t *testing.T) {
	for spec, want := range map[string]string{
		"net/http": "http", "github.com/a/b/v2": "b", "gopkg.in/yaml.v3": "yaml",
		"github.com/x/go-toml": "toml", "github.com/x/kin-openapi": "kinopenapi",
	} {
		if got := goPackageName(spec); got != want {
			t.Errorf("%s: %q, want %q", spec, got, want)
		}
	}
}

func FuzzScanSites(f *testing.F) {
	for _, s := range []string{"f(x)", "func (a) b(", "'", "\"\"\"", "/*", "a->b(", "x::y(", "@d.e(", "int *f(", "`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		for _, fam := range []string{"go", "python", "js", "rust", "c", "php", "bash"} {
			scanSites([]byte(src), 0, syntaxOf(fam), func(s site) {
				if s.off < 0 || s.off+len(s.name) > len(src) || src[s.off:s.off+len(s.name)] != s.name || s.name == "" {
					t.Fatalf("%s: bad site %+v in %q", fam, s, src)
				}
			})
		}
	})
}

func TestGoAliases(t *testing.T) {
	text := []byte("package p\n\nimport \"a/single\"\nimport m \"a/money\"\nimport (\n\t\"fmt\"\n\t. \"a/dot\"\n\t_ \"a/blank\"\n\tx \"a/x\"\n)\n\nfunc f() { y \"a/late\" }\n")
	want := map[string]string{"a/money": "m", "a/dot": ".", "a/x": "x"}
	if got := goAliases(text); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
