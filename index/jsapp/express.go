package jsapp

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
)

// verbs are the router methods that register routes, as HTTP methods.
var verbs = map[string]string{"get": "GET", "post": "POST", "put": "PUT", "patch": "PATCH", "delete": "DELETE",
	"options": "OPTIONS", "head": "HEAD", "all": "ANY"}

// express is one Express file's walk. Routers are named by reference: a
// variable's name, or "@N" for one created at byte N (express(),
// express.Router(), Router()) and not yet named; aliases join the two.
type express struct {
	*x
	alias  map[string]string       // variable -> "@N" of the router it holds
	arrays map[string]*sitter.Node // top-level array literals, for forEach mounts
	subst  map[string]*sitter.Node // "route.path" -> value, inside a forEach over an array
	routes []rawRoute
	mounts []mount
	export string            // the router the module exports
	inline []appgraph.Method // inline route handlers
	models []model
	refs   []appgraph.Relation // schema fields with ref: 'Model'
}

type rawRoute struct {
	router string
	appgraph.Route
}

// mount is a router.use(prefix, child): a router of the same file (child)
// or a module's exported router (module).
type mount struct {
	parent, prefix, child, module string
}

// ExtractExpress reads the Express facts of the file at rel (slash path)
// from its tree-sitter root: routes with their local prefixes, the modules
// it mounts under a prefix, and the module as a controller when it holds
// handlers. It never fails: what it does not recognise it skips.
func ExtractExpress(root *sitter.Node, src []byte, rel string) *appgraph.Facts {
	if root == nil {
		return &appgraph.Facts{}
	}
	ex := &express{x: newX(src, rel), alias: map[string]string{}, arrays: map[string]*sitter.Node{}}
	defer ex.Located(src)
	ex.top(root)
	ex.walk(root)
	ex.finish(root)
	return &ex.f
}

// top reads the top-level statements: imports, requires, functions,
// exports and arrays.
func (ex *express) top(root *sitter.Node) {
	for _, c := range named(root) {
		ex.At = c.StartByte()
		ex.f.Stmts = append(ex.f.Stmts, ex.span(c))
		ex.topStmt(c, c)
	}
}

func (ex *express) topStmt(stmt, c *sitter.Node) {
	switch c.Type() {
	case "import_statement":
		ex.imports(c)
	case "lexical_declaration", "variable_declaration":
		ex.declares(c, false)
		for _, d := range named(c) {
			if name, v := d.ChildByFieldName("name"), d.ChildByFieldName("value"); name != nil && v != nil && v.Type() == "array" {
				ex.arrays[ex.text(name)] = v
			}
		}
	case "function_declaration", "generator_function_declaration":
		ex.method(ex.text(c.ChildByFieldName("name")), stmt, c)
	case "class_declaration":
		ex.classMethods(c)
	case "export_statement":
		if d := c.ChildByFieldName("declaration"); d != nil {
			ex.topStmt(stmt, d)
		}
		if v := c.ChildByFieldName("value"); v != nil {
			ex.exportValue(stmt, v)
		}
	case "expression_statement":
		a := firstNamed(c)
		if a == nil || a.Type() != "assignment_expression" {
			return
		}
		left := ex.text(a.ChildByFieldName("left"))
		if left == "module.exports" {
			ex.exportValue(stmt, a.ChildByFieldName("right"))
			return
		}
		ex.exportAssign(stmt, a)
	}
}

// exportValue reads what module.exports = v or export default v exports.
func (ex *express) exportValue(stmt, v *sitter.Node) {
	switch {
	case v == nil:
	case v.Type() == "object":
		ex.objectMethods(v)
	case v.Type() == "new_expression" || v.Type() == "identifier":
	case handlerFunc(v) != nil && v.Type() != "call_expression":
		name := "default"
		if n := v.ChildByFieldName("name"); n != nil {
			name = ex.text(n)
		}
		ex.method(name, stmt, v)
	}
	if v != nil {
		if r, _ := ex.routerOf(v); r != "" {
			ex.export = r
		}
	}
}

func firstNamed(n *sitter.Node) *sitter.Node {
	if ns := named(n); len(ns) > 0 {
		return ns[0]
	}
	return nil
}

// routerOf is the router an expression evaluates to, and the path of a
// router.route(path) chain.
func (ex *express) routerOf(n *sitter.Node) (string, string) {
	for depth := 0; n != nil && depth < 64; depth++ {
		switch n.Type() {
		case "identifier":
			return ex.text(n), ""
		case "parenthesized_expression", "await_expression":
			n = firstNamed(n)
			continue
		case "call_expression":
		default:
			return "", ""
		}
		fn := n.ChildByFieldName("function")
		if fn == nil {
			return "", ""
		}
		switch t := ex.text(fn); {
		case t == "express" || t == "Router" || t == "express.Router" || t == "express.default":
			return "@" + itoa(int(n.StartByte())), ""
		case fn.Type() != "member_expression":
			return "", ""
		}
		prop := ex.text(fn.ChildByFieldName("property"))
		obj := fn.ChildByFieldName("object")
		if prop == "route" {
			r, _ := ex.routerOf(obj)
			p, _ := ex.str(ex.arg(n, 0))
			return r, p
		}
		if _, ok := verbs[prop]; !ok && prop != "use" {
			return "", ""
		}
		n = obj // a chain: app.get(...).post(...) returns app
	}
	return "", ""
}

func itoa(i int) string {
	var b [20]byte
	p := len(b)
	for {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[p:])
		}
	}
}

func (ex *express) args(call *sitter.Node) []*sitter.Node {
	args := named(call.ChildByFieldName("arguments"))
	for i, a := range args {
		args[i] = ex.sub(a)
	}
	return args
}

func (ex *express) arg(call *sitter.Node, i int) *sitter.Node {
	if args := ex.args(call); i < len(args) {
		return args[i]
	}
	return nil
}

// sub replaces route.path inside a forEach over an array of objects.
func (ex *express) sub(n *sitter.Node) *sitter.Node {
	if ex.subst != nil && n.Type() == "member_expression" {
		if v, ok := ex.subst[ex.text(n)]; ok {
			return v
		}
	}
	return n
}

// walk visits every node; calls are read where they are (a route may sit
// in a function that receives the app).
func (ex *express) walk(root *sitter.Node) {
	c := sitter.NewTreeCursor(root)
	defer c.Close()
	for {
		n := c.CurrentNode()
		descend := true
		switch n.Type() {
		case "call_expression":
			ex.At = n.StartByte()
			descend = ex.call(n)
		case "variable_declarator":
			if name, v := n.ChildByFieldName("name"), n.ChildByFieldName("value"); name != nil && v != nil {
				if r, _ := ex.routerOf(v); strings.HasPrefix(r, "@") {
					ex.alias[ex.text(name)] = r
				}
			}
		case "pair":
			ex.ref(n)
		case "string", "template_string", "comment", "jsx_element", "type_annotation", "interface_declaration":
			descend = false
		}
		if descend && c.GoToFirstChild() {
			continue
		}
		for !c.GoToNextSibling() {
			if !c.GoToParent() {
				return
			}
		}
	}
}

// call reads a route, a mount or a forEach over mounts; it returns
// whether the walk goes into the call's children.
func (ex *express) call(n *sitter.Node) bool {
	fn := n.ChildByFieldName("function")
	if fn != nil && (fn.Type() == "identifier" || fn.Type() == "member_expression") {
		ex.mongooseModel(n, fn)
	}
	if fn == nil || fn.Type() != "member_expression" {
		return true
	}
	prop := ex.text(fn.ChildByFieldName("property"))
	obj := fn.ChildByFieldName("object")
	switch {
	case prop == "use":
		ex.use(n, obj)
	case prop == "forEach":
		return !ex.forEach(n, obj)
	case verbs[prop] != "":
		ex.route(n, fn, obj, prop)
	}
	return true
}

// route reads app.get(path, ...handlers), router.route(path).get(...).
func (ex *express) route(n, fn, obj *sitter.Node, prop string) {
	r, chainPath := ex.routerOf(obj)
	if r == "" {
		return
	}
	if b, ok := ex.binds[r]; ok && b.module == "" && !strings.Contains(r, "express") {
		return // axios.get(...): a package other than express
	}
	args := ex.args(n)
	chained := obj.Type() == "call_expression" && chainPath != "" || ex.isRouteChain(obj)
	var p string
	if !chained {
		if len(args) < 2 {
			return // app.get('setting')
		}
		s, ok := ex.str(args[0])
		if !ok {
			return
		}
		p, args = s, args[1:]
	} else {
		p = chainPath
	}
	if len(args) == 0 {
		return
	}
	last := args[len(args)-1]
	switch last.Type() {
	case "object", "string", "number", "array", "template_string", "true", "false", "null":
		return // a client call's options, no handler
	}
	rt := appgraph.Route{Methods: []string{verbs[prop]}, URI: p}
	for _, a := range args[:len(args)-1] {
		rt.Middleware = append(rt.Middleware, collapse(ex.text(a)))
	}
	rt.Controller, rt.Action = ex.handler(last)
	if rt.Action == "closure" {
		// An inline handler is a function of this module named after
		// its route as the file writes it (GET /articles/feed), so
		// controller: walks reach it.
		rt.Controller, rt.Action = ModuleID(ex.path), verbs[prop]+" "+p
		ex.inline = append(ex.inline, appgraph.Method{Name: rt.Action, Uses: ex.uses(last), Span: ex.span(last)})
	}
	start := int(n.StartByte())
	if chained {
		start = int(fn.ChildByFieldName("property").StartByte())
	}
	rt.Span = ex.spanOf(start, int(n.EndByte()))
	ex.routes = append(ex.routes, rawRoute{router: r, Route: rt})
}

// isRouteChain reports whether obj is router.route(path) or a call
// chained on it.
func (ex *express) isRouteChain(obj *sitter.Node) bool {
	for depth := 0; obj != nil && obj.Type() == "call_expression" && depth < 64; depth++ {
		fn := obj.ChildByFieldName("function")
		if fn == nil || fn.Type() != "member_expression" {
			return false
		}
		if ex.text(fn.ChildByFieldName("property")) == "route" {
			return true
		}
		obj = fn.ChildByFieldName("object")
	}
	return false
}

func collapse(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// handler resolves a route's last handler to a module (the controller)
// and its function (the action): an inline function is a closure, a name
// of this module's functions is this module's, an import or
// controller.method resolves through require/import.
func (ex *express) handler(h *sitter.Node) (string, string) {
	for depth := 0; depth < 3 && h.Type() == "call_expression"; depth++ {
		args := named(h.ChildByFieldName("arguments")) // catchAsync(list)
		if len(args) != 1 {
			return "", collapse(ex.text(h))
		}
		h = args[0]
	}
	if isFunc(h) {
		return "", "closure"
	}
	switch h.Type() {
	case "identifier":
		name := ex.text(h)
		if b, ok := ex.binds[name]; ok && b.module != "" {
			switch {
			case b.export != "":
				return b.module, b.export
			case b.def:
				return b.module, "default"
			}
		}
		for _, m := range ex.funcs {
			if m.Name == name {
				return ModuleID(ex.path), name
			}
		}
		return "", name
	case "member_expression":
		obj, prop := h.ChildByFieldName("object"), ex.text(h.ChildByFieldName("property"))
		if obj != nil && obj.Type() == "identifier" {
			if b, ok := ex.binds[ex.text(obj)]; ok && b.module != "" && b.export == "" {
				return b.module, prop
			}
		}
	}
	return "", collapse(ex.text(h))
}

// use reads router.use([prefix,] ...routers): mounts of this file's
// routers and of other modules' exported routers.
func (ex *express) use(n, obj *sitter.Node) {
	parent, _ := ex.routerOf(obj)
	if parent == "" {
		return
	}
	args := ex.args(n)
	prefix := ""
	if len(args) > 0 {
		if s, ok := ex.str(args[0]); ok {
			prefix, args = s, args[1:]
		}
	}
	for _, a := range args {
		if spec, ok := ex.requireOf(a); ok {
			if mod := resolve(ex.path, spec); mod != "" {
				ex.mounts = append(ex.mounts, mount{parent: parent, prefix: prefix, module: mod})
			}
			continue
		}
		if a.Type() == "identifier" {
			if b, ok := ex.binds[ex.text(a)]; ok {
				if b.module != "" && (b.export == "" || b.export == "default") {
					ex.mounts = append(ex.mounts, mount{parent: parent, prefix: prefix, module: b.module})
				}
				continue
			}
		}
		if child, _ := ex.routerOf(a); child != "" {
			ex.mounts = append(ex.mounts, mount{parent: parent, prefix: prefix, child: child})
		}
	}
}

// forEach reads routes.forEach((route) => router.use(route.path,
// route.route)) over a top-level array of objects, once per element; it
// reports whether it did (then the walk skips the call's children).
func (ex *express) forEach(n, obj *sitter.Node) bool {
	arr, ok := ex.arrays[ex.text(obj)]
	if !ok || obj.Type() != "identifier" || ex.subst != nil {
		return false
	}
	args := named(n.ChildByFieldName("arguments"))
	if len(args) != 1 || !isFunc(args[0]) {
		return false
	}
	fn := args[0]
	param := fn.ChildByFieldName("parameter")
	if param == nil {
		ps := named(fn.ChildByFieldName("parameters"))
		if len(ps) == 0 {
			return false
		}
		param = ps[0]
		if pat := param.ChildByFieldName("pattern"); pat != nil {
			param = pat
		}
	}
	body := fn.ChildByFieldName("body")
	if param.Type() != "identifier" || body == nil {
		return false
	}
	p := ex.text(param)
	for _, el := range named(arr) {
		if el.Type() != "object" {
			continue
		}
		ex.subst = map[string]*sitter.Node{}
		for _, pair := range named(el) {
			switch pair.Type() {
			case "pair":
				ex.subst[p+"."+strings.Trim(ex.text(pair.ChildByFieldName("key")), `"'`)] = pair.ChildByFieldName("value")
			case "shorthand_property_identifier":
				ex.subst[p+"."+ex.text(pair)] = pair
			}
		}
		ex.walk(body)
		ex.subst = nil
	}
	return true
}

// finish applies the prefixes of this file's mounts to its routes and
// names the modules it mounts, relative to the router it exports (or the
// app it builds).
func (ex *express) finish(root *sitter.Node) {
	canon := func(r string) string {
		if a, ok := ex.alias[r]; ok {
			return a
		}
		return r
	}
	parents := map[string]mount{}
	for _, m := range ex.mounts {
		if m.child != "" {
			if _, ok := parents[canon(m.child)]; !ok {
				parents[canon(m.child)] = m
			}
		}
	}
	export := canon(ex.export)
	prefix := func(r string) string {
		r = canon(r)
		var parts []string
		for depth := 0; depth < 16 && r != export; depth++ {
			m, ok := parents[r]
			if !ok {
				break
			}
			parts = append([]string{m.prefix}, parts...)
			r = canon(m.parent)
		}
		out := ""
		for _, p := range parts {
			out = appgraph.JoinURI(out, p)
		}
		return out
	}
	self := ModuleID(ex.path)
	isController := looksController(ex.path) || ex.handlerParams || len(ex.inline) > 0
	for _, m := range ex.inline {
		if !hasMethod(ex.funcs, m.Name) {
			ex.funcs = append(ex.funcs, m)
		}
	}
	for _, r := range ex.routes {
		rt := r.Route
		rt.URI = "/" + appgraph.JoinURI(prefix(r.router), rt.URI)
		ex.f.Routes = append(ex.f.Routes, rt)
		if rt.Controller == self {
			isController = true
		}
	}
	for _, m := range ex.mounts {
		if m.module != "" {
			ex.f.RouteFiles = append(ex.f.RouteFiles, appgraph.RouteFile{File: m.module, Prefix: appgraph.JoinURI(prefix(m.parent), m.prefix)})
		}
	}
	if isController && len(ex.funcs) > 0 {
		for i := range ex.funcs {
			if i < len(ex.bodies) && ex.funcs[i].Uses == nil {
				ex.funcs[i].Uses = ex.uses(ex.bodies[i])
			}
		}
		ex.f.Classes = append(ex.f.Classes, ex.controller(int(root.StartByte()), int(root.EndByte())))
	}
	ex.f.Classes = append(ex.f.Classes, ex.modelClasses()...)
}
