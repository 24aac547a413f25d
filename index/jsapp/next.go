package jsapp

import (
	"path"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
)

// httpMethods are the functions a Next.js route handler (app/**/route.ts)
// exports, one route each.
var httpMethods = map[string]bool{"GET": true, "POST": true, "PUT": true, "PATCH": true, "DELETE": true, "HEAD": true, "OPTIONS": true}

// ExtractNext reads the Next.js facts of the file at rel from its
// tree-sitter root. Routes come from the file's place: app/**/page.tsx is
// a GET page, app/**/route.ts one route per exported HTTP method,
// pages/**/x.tsx a GET page and pages/api/** an API route of any method
// (its default export). The app or pages folder is the one at the top of
// the Next.js package's folder home (its package.json's), or under its
// src/; a folder of that name deeper down is no router. Route groups (group) and
// parallel-route slots @slot leave the URI; a dynamic segment [id] is
// {id}, a catch-all [...slug] {...slug}, an optional one [[...slug]]
// {...slug?}. The module is the routes' controller, its action the
// exported function. It never fails: other files have no facts.
func ExtractNext(root *sitter.Node, src []byte, rel, home string) *appgraph.Facts {
	if root == nil {
		return &appgraph.Facts{}
	}
	segs := strings.Split(ModuleID(rel), "/")
	if path.Base(ModuleID(rel)) != path.Base(strings.TrimSuffix(rel, path.Ext(rel))) {
		segs = append(segs, "index") // pages/blog/index.tsx
	}
	at := 0 // the first segment under home
	if home != "." && home != "" {
		at = len(strings.Split(home, "/"))
	}
	if at < len(segs)-1 && segs[at] == "src" {
		at++
	}
	if at >= len(segs)-1 || segs[at] != "app" && segs[at] != "pages" {
		return &appgraph.Facts{}
	}
	rest := segs[at+1:]
	if last := rest[len(rest)-1]; segs[at] == "app" && last != "page" && last != "route" {
		return &appgraph.Facts{} // a layout, a component beside the routes
	}
	ex := &express{x: newX(src, rel), alias: map[string]string{}, arrays: map[string]*sitter.Node{}}
	defer ex.Located(src)
	ex.top(root)
	var routes []appgraph.Route
	if segs[at] == "app" {
		routes = ex.appRoutes(root, rest)
	} else {
		routes = ex.pagesRoutes(root, rest)
	}
	if len(routes) == 0 {
		return &appgraph.Facts{}
	}
	ex.f.Routes = routes
	ex.f.Classes = append(ex.f.Classes, ex.controller(int(root.StartByte()), int(root.EndByte())))
	return &ex.f
}

// uri turns route folders into a URI; ok is false for a private folder
// (_x) or an intercepting route ((.)x).
func uri(dirs []string) (string, bool) {
	var out []string
	for _, d := range dirs {
		switch {
		case strings.HasPrefix(d, "_"), strings.HasPrefix(d, "(."):
			return "", false
		case strings.HasPrefix(d, "(") && strings.HasSuffix(d, ")"), strings.HasPrefix(d, "@"):
			continue
		case strings.HasPrefix(d, "[[...") && strings.HasSuffix(d, "]]"):
			out = append(out, "{..."+d[5:len(d)-2]+"?}")
		case strings.HasPrefix(d, "[...") && strings.HasSuffix(d, "]"):
			out = append(out, "{..."+d[4:len(d)-1]+"}")
		case strings.HasPrefix(d, "[") && strings.HasSuffix(d, "]"):
			out = append(out, "{"+d[1:len(d)-1]+"}")
		default:
			out = append(out, d)
		}
	}
	return "/" + strings.Join(out, "/"), true
}

func (ex *express) appRoutes(root *sitter.Node, rest []string) []appgraph.Route {
	u, ok := uri(rest[:len(rest)-1])
	if !ok {
		return nil
	}
	self := ModuleID(ex.path)
	switch rest[len(rest)-1] {
	case "page":
		name, stmt := ex.defaultExport(root)
		if stmt == nil {
			return nil
		}
		return []appgraph.Route{{Methods: []string{"GET"}, URI: u, Controller: self, Action: name, Span: ex.span(stmt)}}
	case "route":
		var out []appgraph.Route
		for _, c := range named(root) {
			if c.Type() != "export_statement" {
				continue
			}
			ex.At = c.StartByte()
			for _, name := range ex.exportedNames(c) {
				if httpMethods[name] {
					out = append(out, appgraph.Route{Methods: []string{name}, URI: u, Controller: self, Action: name, Span: ex.span(c)})
					ex.method(name, c, c)
				}
			}
		}
		return out
	}
	return nil
}

func (ex *express) pagesRoutes(root *sitter.Node, rest []string) []appgraph.Route {
	if last := rest[len(rest)-1]; strings.HasPrefix(last, "_") {
		return nil // _app, _document
	}
	dirs := rest
	if rest[len(rest)-1] == "index" {
		dirs = rest[:len(rest)-1]
	}
	u, ok := uri(dirs)
	if !ok {
		return nil
	}
	name, stmt := ex.defaultExport(root)
	if stmt == nil {
		return nil
	}
	method := "GET"
	if rest[0] == "api" {
		method = "ANY"
	}
	return []appgraph.Route{{Methods: []string{method}, URI: u, Controller: ModuleID(ex.path), Action: name, Span: ex.span(stmt)}}
}

// exportedNames are the names an export statement exports: export
// function GET, export const GET = ..., export { handler as GET }, and
// the names a destructuring binds (Auth.js's export const { GET, POST } =
// handlers, or { handlers: { GET, POST } } = NextAuth(...)).
func (ex *express) exportedNames(c *sitter.Node) []string {
	var out []string
	if d := c.ChildByFieldName("declaration"); d != nil {
		switch d.Type() {
		case "function_declaration", "generator_function_declaration":
			out = append(out, ex.text(d.ChildByFieldName("name")))
		case "lexical_declaration", "variable_declaration":
			for _, v := range named(d) {
				if v.Type() == "variable_declarator" {
					out = ex.boundNames(out, v.ChildByFieldName("name"), 0)
				}
			}
		}
		return out
	}
	for _, k := range named(c) {
		if k.Type() != "export_clause" {
			continue
		}
		for _, s := range named(k) {
			n := s.ChildByFieldName("alias")
			if n == nil {
				n = s.ChildByFieldName("name")
			}
			out = append(out, ex.text(n))
		}
	}
	return out
}

// boundNames appends the names a declarator's name binds: an identifier,
// or every name of a destructuring pattern (a pair's value, not its key;
// a default's target, not its value).
func (ex *express) boundNames(out []string, n *sitter.Node, depth int) []string {
	if n == nil || depth > 16 {
		return out
	}
	switch n.Type() {
	case "identifier", "shorthand_property_identifier_pattern":
		return append(out, ex.text(n))
	case "pair_pattern":
		return ex.boundNames(out, n.ChildByFieldName("value"), depth+1)
	case "assignment_pattern", "object_assignment_pattern":
		return ex.boundNames(out, n.ChildByFieldName("left"), depth+1)
	case "object_pattern", "array_pattern", "rest_pattern":
		for _, c := range named(n) {
			out = ex.boundNames(out, c, depth+1)
		}
	}
	return out
}

// defaultExport is the name of the function a module exports by default
// ("default" when it has none) and the statement that declares it; nil
// when there is no default export.
func (ex *express) defaultExport(root *sitter.Node) (string, *sitter.Node) {
	var named_ string
	var stmt *sitter.Node
	for _, c := range named(root) {
		if c.Type() != "export_statement" || !hasChild(c, "default") {
			continue
		}
		stmt = c
		if d := c.ChildByFieldName("declaration"); d != nil {
			named_ = ex.text(d.ChildByFieldName("name"))
		} else if v := c.ChildByFieldName("value"); v != nil {
			switch {
			case v.Type() == "identifier":
				named_ = ex.text(v)
			case isFunc(v):
				named_ = ex.text(v.ChildByFieldName("name"))
			}
		}
	}
	if stmt == nil {
		return "", nil
	}
	if named_ == "" {
		named_ = "default"
	}
	// The declaration of an exported identifier is the page's code.
	for _, m := range ex.funcs {
		if m.Name == named_ && m.StartByte < int(stmt.StartByte()) {
			for _, c := range named(root) {
				if int(c.StartByte()) == m.StartByte {
					return named_, c
				}
			}
		}
	}
	if !hasMethod(ex.funcs, named_) {
		ex.method(named_, stmt, stmt)
	}
	return named_, stmt
}

func hasMethod(ms []appgraph.Method, name string) bool {
	for _, m := range ms {
		if m.Name == name {
			return true
		}
	}
	return false
}

// hasChild reports whether n has an anonymous child of type typ (a keyword).
func hasChild(n *sitter.Node, typ string) bool {
	c := sitter.NewTreeCursor(n)
	defer c.Close()
	for ok := c.GoToFirstChild(); ok; ok = c.GoToNextSibling() {
		if c.CurrentNode().Type() == typ {
			return true
		}
	}
	return false
}
