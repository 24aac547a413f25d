package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/cmd/internal/docquery"
)

// goLang measures on Go package trees, by default $GOROOT/src/net and
// $GOROOT/src/encoding. As this harness always did, only .go files are
// copied and testdata directories are left out.
var goLang = &language{
	defaults: func(string) ([]string, error) {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return nil, fmt.Errorf("go env GOROOT: %w", err)
		}
		goroot := strings.TrimSpace(string(out))
		return []string{filepath.Join(goroot, "src", "net"), filepath.Join(goroot, "src", "encoding")}, nil
	},
	code:     func(name string) bool { return strings.HasSuffix(name, ".go") },
	test:     func(rel string) bool { return strings.HasSuffix(rel, "_test.go") },
	skipDir:  func(name string) bool { return name == "testdata" },
	codeOnly: true,
	strip:    stripGo,
}

// stripGo blanks the doc comments of documented functions (keeping line
// numbers) and returns the queries made from them.
func stripGo(src []byte, rel string) ([]byte, []item) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments)
	if err != nil {
		return src, nil
	}
	out := slices.Clone(src)
	var items []item
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Doc == nil || fn.Body == nil {
			continue
		}
		q := docquery.FirstSentence(fn.Doc.Text(), fn.Name.Name)
		if !docquery.Enough(q) {
			continue
		}
		blank(out, fset.Position(fn.Doc.Pos()).Offset, fset.Position(fn.Doc.End()).Offset)
		items = append(items, item{Query: q, Path: rel, Func: fn.Name.Name,
			Start: fset.Position(fn.Pos()).Line, End: fset.Position(fn.End()).Line})
	}
	return out, items
}
