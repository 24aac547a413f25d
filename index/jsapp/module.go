// Package jsapp reads Express and Next.js applications (seed 002, issue
// 17) from the chunker's tree-sitter parse of JavaScript and TypeScript
// files: Express routes registered in code with the prefixes of the
// routers that mount them, Next.js routes from the app/ and pages/ file
// layout, and the modules that hold their handlers as controllers.
//
// A JavaScript controller is a module: its fully qualified name is the
// module's path relative to the workspace root without extension and
// without a trailing /index (src/controllers/user.controller), its name
// the last element (user.controller), its methods the module's functions.
// Relative import specifiers resolve to the same form, so a route's
// handler names the controller whatever extension or index file it has.
package jsapp

import (
	"path"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
)

// jsExts are the extensions of the files the JavaScript and TypeScript
// grammars parse, which an import specifier may leave out.
var jsExts = []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"}

// ModuleID is the module path of the file at rel: no extension, no
// trailing /index.
func ModuleID(rel string) string {
	ext := path.Ext(rel)
	if slices.Contains(jsExts, ext) {
		rel = strings.TrimSuffix(rel, ext)
	}
	if path.Base(rel) == "index" && rel != "index" {
		rel = path.Dir(rel)
	}
	return rel
}

// resolve turns a relative import specifier of the file at from into a
// module path; "" for a package (express, @/lib/db) or an empty specifier.
func resolve(from, spec string) string {
	if spec != "." && spec != ".." && !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") {
		return ""
	}
	p := path.Join(path.Dir(from), spec)
	if strings.HasPrefix(p, "../") || p == ".." {
		return "" // outside the workspace
	}
	return ModuleID(p)
}

// x walks one file's tree.
type x struct {
	src  []byte
	path string
	f    appgraph.Facts
	ls   []int
	// binds are the file's top-level names bound to imports.
	binds map[string]binding
	// funcs are the file's top-level functions, by name, in order.
	funcs []appgraph.Method
	// bodies are the funcs' function nodes, for their uses.
	bodies []*sitter.Node
	// handlerParams is set when a top-level function takes (req, res),
	// the shape of an Express handler.
	handlerParams bool
	// Where is where the walk is, for a failure's line (deferred by the
	// extractors: Located).
	appgraph.Where
}

// binding is a name bound to what a module exports: the whole module
// (require('./m'), import * as m, and a default import, export "") or one
// named export.
type binding struct {
	module string // module path; "" for a package
	export string // "" for the whole module or its default export
	def    bool   // a default import (import m from './m')
}

func newX(src []byte, rel string) *x {
	e := &x{src: src, path: rel, binds: map[string]binding{}}
	e.ls = []int{0}
	for i, b := range src {
		if b == '\n' {
			e.ls = append(e.ls, i+1)
		}
	}
	return e
}

func (e *x) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(e.src[n.StartByte():n.EndByte()])
}

func (e *x) line(off int) int {
	i, _ := slices.BinarySearch(e.ls, off+1)
	return i
}

func (e *x) spanOf(start, end int) appgraph.Span {
	last := max(end-1, start)
	return appgraph.Span{StartByte: start, EndByte: end, StartLine: e.line(start), EndLine: e.line(last)}
}

func (e *x) span(n *sitter.Node) appgraph.Span {
	return e.spanOf(int(n.StartByte()), int(n.EndByte()))
}

// named lists n's named children that are no comments. A cursor walks
// them in one pass (NamedChild(i) starts from the first child each time).
func named(n *sitter.Node) []*sitter.Node {
	if n == nil || n.ChildCount() == 0 {
		return nil
	}
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	var out []*sitter.Node
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		if k := c.CurrentNode(); k.IsNamed() && k.Type() != "comment" {
			out = append(out, k)
		}
	}
	return out
}

// str is the value of a string literal (or a template without
// substitutions); ok is false for anything else.
func (e *x) str(n *sitter.Node) (string, bool) {
	if n == nil {
		return "", false
	}
	switch n.Type() {
	case "string":
		return strings.Trim(e.text(n), `"'`), true
	case "template_string":
		for _, c := range named(n) {
			if c.Type() == "template_substitution" {
				return "", false
			}
		}
		return strings.Trim(e.text(n), "`"), true
	}
	return "", false
}

// isFunc reports whether n is a function value.
func isFunc(n *sitter.Node) bool {
	if n == nil {
		return false
	}
	switch n.Type() {
	case "arrow_function", "function_expression", "function", "generator_function":
		return true
	}
	return false
}

// requireOf is the specifier of require('spec'), if n is that call.
func (e *x) requireOf(n *sitter.Node) (string, bool) {
	if n == nil || n.Type() != "call_expression" || e.text(n.ChildByFieldName("function")) != "require" {
		return "", false
	}
	args := named(n.ChildByFieldName("arguments"))
	if len(args) != 1 {
		return "", false
	}
	return e.str(args[0])
}

// imports records the names an import statement binds.
func (e *x) imports(n *sitter.Node) {
	spec, ok := e.str(n.ChildByFieldName("source"))
	if !ok {
		return
	}
	mod := resolve(e.path, spec)
	for _, c := range named(n) {
		if c.Type() != "import_clause" {
			continue
		}
		for _, k := range named(c) {
			switch k.Type() {
			case "identifier":
				e.binds[e.text(k)] = binding{module: mod, def: true}
			case "namespace_import":
				for _, id := range named(k) {
					e.binds[e.text(id)] = binding{module: mod}
				}
			case "named_imports":
				for _, s := range named(k) {
					name, alias := s.ChildByFieldName("name"), s.ChildByFieldName("alias")
					if alias == nil {
						alias = name
					}
					if name != nil {
						e.binds[e.text(alias)] = binding{module: mod, export: e.text(name)}
					}
				}
			}
		}
	}
}

// declares reads a top-level variable declaration: a require binding, a
// function (a module method), or a value a walk resolves later.
func (e *x) declares(n *sitter.Node, exported bool) {
	for _, d := range named(n) {
		if d.Type() != "variable_declarator" {
			continue
		}
		name, v := d.ChildByFieldName("name"), d.ChildByFieldName("value")
		if name == nil || v == nil {
			continue
		}
		if spec, ok := e.requireOf(v); ok {
			mod := resolve(e.path, spec)
			switch name.Type() {
			case "identifier":
				e.binds[e.text(name)] = binding{module: mod}
			case "object_pattern":
				for _, p := range named(name) {
					switch p.Type() {
					case "shorthand_property_identifier_pattern":
						e.binds[e.text(p)] = binding{module: mod, export: e.text(p)}
					case "pair_pattern":
						k, val := p.ChildByFieldName("key"), p.ChildByFieldName("value")
						if k != nil && val != nil && val.Type() == "identifier" {
							e.binds[e.text(val)] = binding{module: mod, export: e.text(k)}
						}
					}
				}
			}
			continue
		}
		if name.Type() == "identifier" {
			if fn := handlerFunc(v); fn != nil {
				e.method(e.text(name), n, fn)
			}
		}
	}
}

// handlerFunc is the function v is or wraps (catchAsync(async (req, res)
// => ...), asyncHandler(function ...)); nil when it is neither.
func handlerFunc(v *sitter.Node) *sitter.Node {
	for depth := 0; v != nil && depth < 3; depth++ {
		if isFunc(v) {
			return v
		}
		if v.Type() != "call_expression" {
			return nil
		}
		args := named(v.ChildByFieldName("arguments"))
		if len(args) == 0 {
			return nil
		}
		v = args[len(args)-1]
	}
	return nil
}

// method records a top-level function of the module; its span is the
// statement that declares it.
func (e *x) method(name string, stmt, fn *sitter.Node) {
	for _, m := range e.funcs {
		if m.Name == name {
			return
		}
	}
	e.funcs = append(e.funcs, appgraph.Method{Name: name, Span: e.span(stmt)})
	e.bodies = append(e.bodies, fn)
	if ps := fn.ChildByFieldName("parameters"); ps != nil {
		var names []string
		for _, p := range named(ps) {
			if pat := p.ChildByFieldName("pattern"); pat != nil { // TypeScript's required_parameter
				p = pat
			}
			names = append(names, e.text(p))
		}
		if len(names) >= 2 && (names[0] == "req" || names[0] == "request") && (names[1] == "res" || names[1] == "response") {
			e.handlerParams = true
		}
	} else if p := fn.ChildByFieldName("parameter"); p != nil && e.text(p) == "req" {
		e.handlerParams = true
	}
}

// exported reads module.exports.name = fn / exports.name = fn.
func (e *x) exportAssign(stmt, a *sitter.Node) {
	left, right := a.ChildByFieldName("left"), a.ChildByFieldName("right")
	if left == nil || right == nil || left.Type() != "member_expression" {
		return
	}
	obj := e.text(left.ChildByFieldName("object"))
	if obj != "exports" && obj != "module.exports" {
		return
	}
	if fn := handlerFunc(right); fn != nil {
		e.method(e.text(left.ChildByFieldName("property")), stmt, fn)
	}
}

// objectMethods records the methods written in an exported object literal
// (module.exports = { list(req, res) {...}, show: async (req, res) => ... }).
func (e *x) objectMethods(obj *sitter.Node) {
	for _, p := range named(obj) {
		switch p.Type() {
		case "method_definition":
			e.method(e.text(p.ChildByFieldName("name")), p, p)
		case "pair":
			if fn := handlerFunc(p.ChildByFieldName("value")); fn != nil {
				e.method(strings.Trim(e.text(p.ChildByFieldName("key")), `"'`), p, fn)
			}
		}
	}
}

// classMethods records the methods of a class whose instance a module
// exports (module.exports = new UserController()).
func (e *x) classMethods(c *sitter.Node) {
	for _, m := range named(c.ChildByFieldName("body")) {
		if m.Type() == "method_definition" {
			if name := e.text(m.ChildByFieldName("name")); name != "constructor" {
				e.method(name, m, m)
			}
		}
	}
}

// controller is the module as a controller class, its methods the
// module's functions.
func (e *x) controller(start, end int) appgraph.Class {
	id := ModuleID(e.path)
	return appgraph.Class{Name: path.Base(id), FQN: id, Role: appgraph.RoleController,
		Methods: e.funcs, Span: e.spanOf(start, end)}
}

// looksController reports whether the module's path names a controller
// or handler module.
func looksController(rel string) bool {
	for _, s := range strings.Split(strings.ToLower(ModuleID(rel)), "/") {
		if s == "controllers" || s == "handlers" || strings.Contains(s, "controller") || strings.Contains(s, "handler") {
			return true
		}
	}
	return false
}
