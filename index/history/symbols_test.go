package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// declNameByRegexp is declName before its word check: the regular
// expression alone, which the check must never contradict.
func declNameByRegexp(line string) string {
	if len(line) > 300 {
		return ""
	}
	if m := decl().FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// declLines are lines where the word check is easy to get wrong: every
// modifier and keyword, each kind of leading space, pub(...), words that
// only begin with a keyword, capitals.
var declLines = []string{
	"func main() {", "\tfunc (s *S) Get() int {", " \f\r\npub(crate) fn run()", "pub(super) struct X", "pub fn x",
	"defp helper(x)", "def  f(x):", "define x", "defmodule Foo.Bar do", "export default async function App() {",
	"  public static final class Foo", "private readonly interface I", "const enum E {", "typed x", "Func x",
	"impl<T> Foo", "open data class Point(val x: Int)", "\vfunc x()", "functional x", "classy y", "type T struct {}",
	"abstract  override\tvirtual fn z", "object O", "protocol P", "extension E", "record R(int x)", "trait T",
	"module M", "x := func() {}", "", " ", "sealed partial inline extern unsafe fn q", "async def handler(req):",
}

func TestDeclNameWordCheckKeepsTheRegexpsAnswers(t *testing.T) {
	lines := append([]string(nil), declLines...)
	// And every line of this package's and the index's Go files.
	for _, glob := range []string{"*.go", "../*.go", "../segment/*.go"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines = append(lines, strings.Split(string(data), "\n")...)
		}
	}
	if len(lines) < 1000 {
		t.Fatalf("only %d lines to compare", len(lines))
	}
	for _, l := range lines {
		if got, want := declName(l), declNameByRegexp(l); got != want {
			t.Errorf("declName(%q) = %q, the regexp says %q", l, got, want)
		}
	}
}

func FuzzDeclName(f *testing.F) {
	for _, l := range declLines {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if got, want := declName(line), declNameByRegexp(line); got != want {
			t.Fatalf("declName(%q) = %q, the regexp says %q", line, got, want)
		}
	})
}
