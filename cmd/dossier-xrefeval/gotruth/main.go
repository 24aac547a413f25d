// Command gotruth writes the true call edges of a Go repository, from the
// Go type checker (golang.org/x/tools/go/packages), as the truth JSON that
// dossier-xrefeval compares related's callees and callers with.
//
//	go run ./cmd/dossier-xrefeval/gotruth -dir /tmp/xref-repos/glow -repo charmbracelet/glow > glow.json
//
// Definitions are the repository's functions, methods and interface
// methods; an edge is a call expression (test files included) whose callee
// the checker resolves to one of them, attributed to the innermost named
// function or method around it (a closure's calls belong to its function).
// Calls in package-level initializers have no caller and are left out, as
// are conversions, composite literals and calls of function values.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/dossierhq/dossier/cmd/dossier-xrefeval/truth"
)

func main() {
	dir := flag.String("dir", ".", "repository root")
	repo := flag.String("repo", "", "owner/name, for the record")
	commit := flag.String("commit", "", "the commit, for the record (default: the directory's git HEAD)")
	flag.Parse()
	root, err := filepath.Abs(*dir)
	check(err)
	t, err := collect(root)
	check(err)
	t.Repo, t.Commit = *repo, *commit
	if out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output(); err == nil && t.Commit == "" {
		t.Commit = strings.TrimSpace(string(out))
	}
	enc := json.NewEncoder(os.Stdout)
	check(enc.Encode(t))
}

type key struct {
	path string
	line int
	name string
}

func collect(root string) (*truth.File, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes |
			packages.NeedTypesInfo | packages.NeedModule,
		Dir:   root,
		Tests: true,
		Fset:  token.NewFileSet(),
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("load packages: %w", err)
	}
	t := &truth.File{Lang: "go"}
	ids := map[key]int{}
	rel := func(pos token.Pos) (string, int, bool) {
		p := cfg.Fset.Position(pos)
		r, err := filepath.Rel(root, p.Filename)
		if err != nil || strings.HasPrefix(r, "..") {
			return "", 0, false
		}
		return filepath.ToSlash(r), p.Line, true
	}
	add := func(name *ast.Ident, container, kind string) {
		p, line, ok := rel(name.Pos())
		if !ok {
			return
		}
		k := key{p, line, name.Name}
		if _, dup := ids[k]; dup {
			return
		}
		ids[k] = len(t.Defs)
		t.Defs = append(t.Defs, truth.Def{Path: p, Line: line, Name: name.Name, Container: container, Kind: kind})
	}
	packages.Visit(pkgs, nil, func(pkg *packages.Package) {
		for _, e := range pkg.Errors {
			fmt.Fprintln(os.Stderr, "gotruth:", e)
		}
		for _, f := range pkg.Syntax {
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					container, kind := "", "function"
					if d.Recv != nil && len(d.Recv.List) > 0 {
						container, kind = recvBase(d.Recv.List[0].Type), "method"
					}
					add(d.Name, container, kind)
				case *ast.GenDecl:
					for _, s := range d.Specs {
						ts, ok := s.(*ast.TypeSpec)
						if !ok {
							continue
						}
						it, ok := ts.Type.(*ast.InterfaceType)
						if !ok {
							continue
						}
						for _, m := range it.Methods.List {
							if _, isFunc := m.Type.(*ast.FuncType); isFunc {
								for _, n := range m.Names {
									add(n, ts.Name.Name, "interface method")
								}
							}
						}
					}
				}
			}
		}
	})
	type edgeKey struct{ a, b, line int }
	seen := map[edgeKey]bool{}
	packages.Visit(pkgs, nil, func(pkg *packages.Package) {
		if pkg.TypesInfo == nil {
			return
		}
		for _, f := range pkg.Syntax {
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				p, line, ok := rel(fd.Name.Pos())
				if !ok {
					continue
				}
				caller, ok := ids[key{p, line, fd.Name.Name}]
				if !ok {
					continue
				}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					fn := calledFunc(pkg.TypesInfo, call)
					if fn == nil {
						return true
					}
					cp, cline, ok := rel(fn.Pos())
					if !ok {
						return true
					}
					callee, ok := ids[key{cp, cline, fn.Name()}]
					if !ok {
						return true
					}
					_, at, _ := rel(call.Lparen)
					k := edgeKey{caller, callee, at}
					if !seen[k] {
						seen[k] = true
						t.Edges = append(t.Edges, truth.Edge{Caller: caller, Callee: callee, Line: at})
					}
					return true
				})
			}
		}
	})
	sort.Slice(t.Edges, func(i, j int) bool {
		a, b := t.Edges[i], t.Edges[j]
		if a.Caller != b.Caller {
			return a.Caller < b.Caller
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Callee < b.Callee
	})
	return t, nil
}

// calledFunc is the function or method a call expression calls statically,
// nil for conversions, builtins and calls of function values.
func calledFunc(info *types.Info, call *ast.CallExpr) *types.Func {
	fun := ast.Unparen(call.Fun)
	switch f := fun.(type) {
	case *ast.IndexExpr:
		fun = f.X
	case *ast.IndexListExpr:
		fun = f.X
	}
	var id *ast.Ident
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, ok := info.Uses[id].(*types.Func)
	if !ok {
		return nil
	}
	return fn.Origin()
}

// recvBase is the base type name of a receiver: *T[K] -> T.
func recvBase(e ast.Expr) string {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		case *ast.Ident:
			return t.Name
		default:
			return ""
		}
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gotruth:", err)
		os.Exit(1)
	}
}
