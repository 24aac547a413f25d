package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/smacker/go-tree-sitter/python"
	"github.com/smacker/go-tree-sitter/typescript/typescript"
)

// sameShape checks that out has the lines of src, each as many bytes long.
func sameShape(t *testing.T, src, out []byte) {
	t.Helper()
	a, b := strings.Split(string(src), "\n"), strings.Split(string(out), "\n")
	if len(a) != len(b) {
		t.Fatalf("%d lines became %d", len(a), len(b))
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			t.Errorf("line %d: %d bytes became %d: %q", i+1, len(a[i]), len(b[i]), b[i])
		}
	}
}

func checkItems(t *testing.T, got, want []item) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("items:\n got %+v\nwant %+v", got, want)
	}
}

func TestStripGo(t *testing.T) {
	src := []byte(`package p

// Sum adds up the numbers it is given. It never fails.
func Sum(xs ...int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// Short doc.
func short() {}
`)
	out, items := stripGo(src, "p/p.go")
	sameShape(t, src, out)
	checkItems(t, items, []item{{Query: "adds up the numbers it is given", Path: "p/p.go", Func: "Sum", Start: 4, End: 10}})
	if strings.Contains(string(out), "adds up") {
		t.Errorf("comment left in:\n%s", out)
	}
}

func TestStripPython(t *testing.T) {
	src := []byte(`import os


def parse_header(line, strict=False):
    """parse_header(line) Split a MIME header line into
    its value and its parameters.  Second sentence.

    More details here.
    """
    return line.split(";")


class Store:
    @property
    def size(self):
        # a comment before the docstring
        'Return the number of bytes held in the store.'
        return 0

    def tiny(self):
        """Too short."""

    def raw(self): r"""Join the paths with the platform separator."""; return os.sep

    def data(self):
        b"""Bytes are not a docstring at all."""
        return b""
`)
	out, items := stripPython(src, "pkg/store.py")
	sameShape(t, src, out)
	checkItems(t, items, []item{
		{Query: "Split a MIME header line into its value and its parameters", Path: "pkg/store.py", Func: "parse_header", Start: 4, End: 10},
		{Query: "Return the number of bytes held in the store", Path: "pkg/store.py", Func: "Store.size", Start: 15, End: 18},
		{Query: "Join the paths with the platform separator", Path: "pkg/store.py", Func: "Store.raw", Start: 23, End: 23},
	})
	for _, gone := range []string{"Split", "Second", "details", "bytes held", "Join"} {
		if strings.Contains(string(out), gone) {
			t.Errorf("%q left in:\n%s", gone, out)
		}
	}
	for _, kept := range []string{`"""Too short."""`, `b"""Bytes are`} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("%q stripped:\n%s", kept, out)
		}
	}
	lines := strings.Split(string(out), "\n")
	if got := strings.TrimSpace(lines[4]); got != "..." {
		t.Errorf("docstring line became %q, want ...", got)
	}
	tree := parse(python.GetLanguage(), out)
	if tree == nil || tree.RootNode().HasError() {
		t.Errorf("stripped file does not parse:\n%s", out)
	}
}

func TestStripJS(t *testing.T) {
	src := []byte(`import { x } from "./x";

/**
 * Applies a given project function to each value. More text.
 *
 * @param project The function.
 * @returns An operator.
 */
export function map<T>(project: (v: T) => T): T[] {
  return [];
}

class Cache {
  /** Removes every entry from
   * the cache, all at once */
  clear(): void {
    this.m = {};
  }

  /**
   * @param k the key
   */
  get(k: string) { return k; }
}

/**
 * Checks whether a node is a literal
 */
const isLiteral = (node) => node.type === "Literal";

/** Far away from its function, so not its doc. */

function far() {}
`)
	out, items := stripJS(src, "lib/map.ts")
	sameShape(t, src, out)
	checkItems(t, items, []item{
		{Query: "Applies a given project function to each value", Path: "lib/map.ts", Func: "map", Start: 9, End: 11},
		{Query: "Removes every entry from the cache, all at once", Path: "lib/map.ts", Func: "clear", Start: 16, End: 18},
		{Query: "Checks whether a node is a literal", Path: "lib/map.ts", Func: "isLiteral", Start: 29, End: 29},
	})
	for _, gone := range []string{"Applies", "@returns", "Removes", "all at once", "Checks whether"} {
		if strings.Contains(string(out), gone) {
			t.Errorf("%q left in:\n%s", gone, out)
		}
	}
	for _, kept := range []string{"@param k the key", "Far away"} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("%q stripped:\n%s", kept, out)
		}
	}
	tree := parse(typescript.GetLanguage(), out)
	if tree == nil || tree.RootNode().HasError() {
		t.Errorf("stripped file does not parse:\n%s", out)
	}
}

func TestTestFiles(t *testing.T) {
	for rel, want := range map[string]bool{
		"email/test_x.py": true, "email/x_test.py": true, "pkg/tests/util.py": true,
		"pkg/test/util.py": true, "email/parser.py": false, "pkg/testing.py": false,
	} {
		if got := pythonTest(rel); got != want {
			t.Errorf("pythonTest(%q) = %v", rel, got)
		}
	}
	for rel, want := range map[string]bool{
		"lib/a.test.js": true, "src/a.spec.ts": true, "src/__tests__/a.ts": true,
		"lib/rules/curly.js": false,
	} {
		if got := jsTest(rel); got != want {
			t.Errorf("jsTest(%q) = %v", rel, got)
		}
	}
	for name, want := range map[string]bool{"a.js": true, "a.tsx": true, "a.mjs": true, "a.d.ts": false, "a.json": false} {
		if got := jsGrammar(name) != nil; got != want {
			t.Errorf("jsGrammar(%q) != nil is %v", name, got)
		}
	}
}
