package grammar

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/lang"
)

func parse(t *testing.T, language, src string) *sitter.Tree {
	t.Helper()
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(Of(language))
	tree, err := p.ParseCtx(context.Background(), nil, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tree.Close)
	return tree
}

// TestWaysThroughTheTree proves Children, Named and Walk give what
// tree-sitter's index-based calls give, in the same order.
func TestWaysThroughTheTree(t *testing.T) {
	tree := parse(t, lang.Go, "package p\n\n// A doc.\nvar a, b = 1, 2 // trailing\n\nfunc (r *T) M(x int) (int, error) {\n\tswitch v := x.(type) {\n\tcase int:\n\t\treturn v, nil\n\t}\n\treturn 0, nil\n}\n")
	var want []string
	var rec func(n *sitter.Node)
	rec = func(n *sitter.Node) {
		want = append(want, n.Type())
		var kids, named []string
		for i := 0; i < int(n.ChildCount()); i++ {
			kids = append(kids, n.FieldNameForChild(i)+":"+n.Child(i).Type())
		}
		for i := 0; i < int(n.NamedChildCount()); i++ {
			named = append(named, n.NamedChild(i).Type())
		}
		var gotKids, gotNamed []string
		for _, c := range Children(n) {
			gotKids = append(gotKids, c.Field+":"+c.Node.Type())
		}
		for _, c := range Named(n) {
			gotNamed = append(gotNamed, c.Type())
		}
		if strings.Join(gotKids, " ") != strings.Join(kids, " ") || strings.Join(gotNamed, " ") != strings.Join(named, " ") {
			t.Errorf("%s: Children %q Named %q, want %q %q", n.Type(), gotKids, gotNamed, kids, named)
		}
		for i := 0; i < int(n.ChildCount()); i++ {
			rec(n.Child(i))
		}
	}
	rec(tree.RootNode())
	var got []string
	Walk(tree.RootNode(), func(n *sitter.Node) bool { got = append(got, n.Type()); return true })
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Walk:\n got %q\nwant %q", got, want)
	}
	// Skipping a node's children skips them alone.
	got = nil
	Walk(tree.RootNode(), func(n *sitter.Node) bool { got = append(got, n.Type()); return n.Type() != "method_declaration" })
	if j := strings.Join(got, "|"); !strings.HasSuffix(j, "|comment|\n|method_declaration|\n") || strings.Contains(j, "block") {
		t.Errorf("Walk skipping a method's children: %q", got)
	}
}

// TestNoChildByIndex keeps the quadratic walk of issue 30 out of every
// package that goes through syntax trees: a call of NamedChild, Child or
// FieldNameForChild with anything but a constant index is a loop over
// the children, which tree-sitter goes through from the first one on
// every call (see Children). It reads the packages' sources.
func TestNoChildByIndex(t *testing.T) {
	calls := map[string]bool{"NamedChild": true, "Child": true, "FieldNameForChild": true}
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && calls[sel.Sel.Name] {
				if _, lit := call.Args[0].(*ast.BasicLit); !lit {
					t.Errorf("%s: %s by a computed index: list the children once (grammar.Children, Named)", fset.Position(call.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
