package related

import (
	"reflect"
	"testing"
)

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

func TestGoAliases(t *testing.T) {
	text := []byte("package p\n\nimport \"a/single\"\nimport m \"a/money\"\nimport (\n\t\"fmt\"\n\t. \"a/dot\"\n\t_ \"a/blank\"\n\tx \"a/x\"\n)\n\nfunc f() { y \"a/late\" }\n")
	want := map[string]string{"a/money": "m", "a/dot": ".", "a/x": "x"}
	if got := goAliases(text); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
