package grammar

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/lang"
)

// flatSources are files in every language with a grammar: the repository's
// test data, a sample of the Go toolchain's sources, and broken snippets
// (ERROR and MISSING nodes, fields of recovered nodes) and the binding's
// field quirks.
func flatSources(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{
		"broken.go":  []byte("package p\nfunc f( {\n\tx := [1, 2\n}\nfunc g() int { return }\ntype T struct { a int; b }\n"),
		"broken.py":  []byte("def f(:\n    return (1,\nclass C(\n    x = 1\n"),
		"broken.ts":  []byte("function f(a: , b) { let x = ; }\nclass C { m( { } }\n"),
		"broken.c":   []byte("int f(int a { return a + ; }\nstruct S { int x }\n"),
		"broken.rs":  []byte("fn f(x: ) -> { let y = ; }\nimpl T for { }\n"),
		"broken.php": []byte("<?php function f($a { return $a-> ; }\nclass C { public function m( {} }\n"),
		// Fields the binding finds through a hidden rule made visible by
		// an alias: a C function without parameters (old-style
		// declarator), a TypeScript member expression after typeof.
		"alias.c":  []byte("void f() {\n}\nint g(int a) { return a; }\n"),
		"alias.ts": []byte("let x: typeof a.b;\nlet y: typeof f._zod.optin;\n"),
	}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.Contains(path, "testdata") {
			return nil
		}
		if Has(lang.Detect(path, nil)) {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			out[path] = b
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"net/http/server.go", "runtime/proc.go", "go/ast/ast.go", "fmt/print.go", "runtime/asm_amd64.s"} {
		if b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", rel)); err == nil {
			out[rel] = b
		}
	}
	return out
}

// TestFlatMatchesBinding proves that every node of a flattened tree
// answers every question as go-tree-sitter's node does, on every node of
// real files in every language, in a Tree refilled file after file.
func TestFlatMatchesBinding(t *testing.T) {
	srcs := flatSources(t)
	langs := map[string]bool{}
	// One copy refilled with every file, in the map's random order, so
	// that a copy reuses the memory of a larger one and of a smaller one.
	ft := Flatten(parse(t, lang.Go, "package p\n"))
	for path, src := range srcs {
		language := lang.Detect(path, nil)
		if !Has(language) {
			continue
		}
		langs[language] = true
		compareFlat(t, path, language, src, ft)
	}
	for language := range byLang {
		if !langs[language] {
			t.Errorf("no source in %s to compare", language)
		}
	}
}

// compareFlat checks every node of src's tree, copied into ft (see
// Refill), against the binding's.
func compareFlat(t *testing.T, path, language string, src []byte, ft *Tree) {
	t.Helper()
	tree := parse(t, language, string(src))
	ft.Refill(tree)
	fields := ft.names.fields[1:]
	seen := map[*sitter.Node]*Node{}
	var rec func(s *sitter.Node, f *Node)
	errs := 0
	fail := func(s *sitter.Node, format string, args ...any) {
		if errs++; errs <= 5 {
			t.Errorf("%s: %s at %d-%d: "+format, append([]any{path, s.Type(), s.StartByte(), s.EndByte()}, args...)...)
		}
	}
	rec = func(s *sitter.Node, f *Node) {
		seen[s] = f
		if s.Type() != f.Type() || s.Symbol() != f.Symbol() || s.StartByte() != f.StartByte() || s.EndByte() != f.EndByte() ||
			s.StartPoint() != f.StartPoint() || s.EndPoint() != f.EndPoint() {
			fail(s, "flat %s %d %d-%d %v-%v", f.Type(), f.Symbol(), f.StartByte(), f.EndByte(), f.StartPoint(), f.EndPoint())
		}
		if s.IsNamed() != f.IsNamed() || s.IsMissing() != f.IsMissing() || s.IsExtra() != f.IsExtra() ||
			s.HasError() != f.HasError() || s.IsError() != f.IsError() {
			fail(s, "flags differ")
		}
		if s.ChildCount() != f.ChildCount() || s.NamedChildCount() != f.NamedChildCount() {
			fail(s, "counts %d/%d, flat %d/%d", s.ChildCount(), s.NamedChildCount(), f.ChildCount(), f.NamedChildCount())
			return
		}
		// The binding finds a parent and siblings by position, which
		// a zero-width node (a MISSING one) does not have.
		if p := s.Parent(); s.StartByte() < s.EndByte() && ((p == nil) != (f.Parent() == nil) || p != nil && seen[p] != f.Parent()) {
			fail(s, "parent differs")
		}
		for _, name := range fields {
			sc, fc := s.ChildByFieldName(name), f.ChildByFieldName(name)
			if (sc == nil) != (fc == nil) || sc != nil && (sc.StartByte() != fc.StartByte() || sc.EndByte() != fc.EndByte() || sc.Type() != fc.Type()) {
				fail(s, "ChildByFieldName(%q) differs", name)
			}
		}
		for i := range int(s.NamedChildCount()) {
			if sc, fc := s.NamedChild(i), f.NamedChild(i); sc.StartByte() != fc.StartByte() || sc.Type() != fc.Type() {
				fail(s, "NamedChild(%d) differs", i)
			}
		}
		// Children goes through the binding's cursor, which names
		// each child's field; the node is the one Child gives (the
		// cursor's gives a comment in an aliased node its parent's
		// alias as a type).
		kids := f.Children()
		for i, sc := range Children(s) {
			if sc.Field != kids[i].Field() {
				fail(s, "field of child %d: %q, flat %q", i, sc.Field, kids[i].Field())
			}
			k := s.Child(i)
			if sib, fs := k.PrevSibling(), kids[i].PrevSibling(); k.StartByte() < k.EndByte() && ((sib == nil) != (fs == nil) || sib != nil && seen[sib] != fs) {
				fail(s, "PrevSibling of child %d differs", i)
			}
			rec(k, kids[i])
		}
	}
	rec(tree.RootNode(), ft.Root())
	if len(seen) != ft.Len() {
		t.Errorf("%s: the binding has %d nodes, the flat tree %d", path, len(seen), ft.Len())
	}
	var walked []*Node
	ft.Root().Walk(func(n *Node) bool { walked = append(walked, n); return true })
	// The array is in the order of a walk: parents first, source order.
	if len(walked) != ft.Len() || slices.ContainsFunc(walked, func(n *Node) bool { return n != &ft.nodes[slices.Index(walked, n)] }) {
		t.Errorf("%s: Walk went through %d of %d nodes, or out of order", path, len(walked), ft.Len())
	}
}
