package laravel

import (
	"path"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/appgraph"
	sitter "github.com/smacker/go-tree-sitter"
)

// group is what enclosing Route::group / ->group() calls apply.
type group struct {
	prefix     string
	name       string
	middleware []string
	controller string // Route::controller(X)->group()
	namespace  string // 'namespace' => 'Admin' (older apps)
}

var verbs = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"get": {"GET", "HEAD"}, "post": {"POST"}, "put": {"PUT"}, "patch": {"PATCH"}, "delete": {"DELETE"},
		"options": {"OPTIONS"}, "any": {"ANY"}, "view": {"GET", "HEAD"}, "redirect": {"ANY"},
		"permanentRedirect": {"ANY"},
	}
})

// resourceActions are Route::resource's actions in order; apiResource
// leaves out create and edit.
var resourceActions = []struct {
	action, method, suffix string
}{
	{"index", "GET", ""}, {"create", "GET", "/create"}, {"store", "POST", ""}, {"show", "GET", "/{%s}"},
	{"edit", "GET", "/{%s}/edit"}, {"update", "PUT", "/{%s}"}, {"destroy", "DELETE", "/{%s}"},
}

// routeHead reports whether a chain is a route registration: Route::...
// or $router->... / $route->... (Lumen, route service providers).
func routeHead(head string) bool {
	switch head {
	case "Route", `\Route`, `Illuminate\Support\Facades\Route`, `\Illuminate\Support\Facades\Route`, "$router", "$route":
		return true
	}
	return false
}

// routeStmt reads the routes an expression statement registers.
func (e *x) routeStmt(stmt *sitter.Node, g *group) {
	e.At = stmt.StartByte()
	c := firstNamed(stmt)
	if c == nil {
		return
	}
	if e.requireRoutes(c, g) {
		return
	}
	head, links := e.chain(c)
	if !routeHead(head) || len(links) == 0 {
		return
	}
	// Group attributes and a group's closure.
	inner := *g
	inner.middleware = append([]string(nil), g.middleware...)
	var closure *sitter.Node
	var routeLink = -1
	for i, l := range links {
		as := args(l.call)
		switch l.name {
		case "prefix":
			if s, ok := e.str(argOrNil(as, 0)); ok {
				inner.prefix = appgraph.JoinURI(inner.prefix, s)
			}
		case "name", "as":
			if routeLink < 0 {
				if s, ok := e.str(argOrNil(as, 0)); ok {
					inner.name += s
				}
			}
		case "middleware":
			if routeLink < 0 {
				for _, a := range as {
					inner.middleware = append(inner.middleware, e.strs(a)...)
				}
			}
		case "controller":
			if routeLink < 0 {
				inner.controller = e.classRef(argOrNil(as, 0))
			}
		case "namespace":
			if s, ok := e.str(argOrNil(as, 0)); ok {
				inner.namespace = joinNS(inner.namespace, s)
			}
		case "group":
			for _, a := range as {
				switch a.Type() {
				case "array_creation_expression":
					e.groupAttrs(&inner, a)
				case "anonymous_function_creation_expression", "anonymous_function", "arrow_function":
					closure = a
				case "function_call_expression":
					// ->group(base_path('routes/api.php')): the file's routes
					// get this chain's prefix and middleware (see Graph).
					if e.text(a.ChildByFieldName("function")) == "base_path" {
						if f, ok := e.str(argOrNil(args(a), 0)); ok {
							e.f.RouteFiles = append(e.f.RouteFiles, RouteFile{File: strings.TrimPrefix(f, "/"),
								Prefix: inner.prefix, Middleware: inner.middleware, Name: inner.name})
						}
					}
				}
			}
		default:
			if routeLink < 0 && (verbs()[l.name] != nil || l.name == "match" || l.name == "resource" ||
				l.name == "apiResource" || l.name == "singleton" || l.name == "apiSingleton" || l.name == "resources" || l.name == "apiResources") {
				routeLink = i
			}
		}
	}
	if routeLink >= 0 {
		// What the chain set before the verb (->prefix()->name()->get())
		// applies to the route, as RouteRegistrar merges it.
		e.routes(stmt, links, routeLink, &inner)
		return
	}
	if closure != nil {
		if body := closure.ChildByFieldName("body"); body != nil {
			e.routeBlock(body, &inner)
		}
	}
}

// requireRoutes reads require/include of another route file
// (`require __DIR__.'/auth.php';`, `require base_path('routes/x.php');`)
// inside a route file or a group: the file's routes get the group's
// prefix, middleware and name prefix, and whatever loads this file (see
// appgraph's RouteFiles). It reports whether n was such a statement.
func (e *x) requireRoutes(n *sitter.Node, g *group) bool {
	switch n.Type() {
	case "require_expression", "require_once_expression", "include_expression", "include_once_expression":
	default:
		return false
	}
	arg := firstNamed(n)
	if arg == nil {
		return true
	}
	var file string
	switch arg.Type() {
	case "binary_expression": // __DIR__.'/auth.php'
		l, r := arg.ChildByFieldName("left"), arg.ChildByFieldName("right")
		if l == nil || r == nil || e.text(l) != "__DIR__" {
			return true
		}
		s, ok := e.str(r)
		if !ok {
			return true
		}
		file = path.Join(path.Dir(e.path), s)
	case "function_call_expression": // base_path('routes/x.php')
		if e.text(arg.ChildByFieldName("function")) != "base_path" {
			return true
		}
		s, ok := e.str(argOrNil(args(arg), 0))
		if !ok {
			return true
		}
		file = strings.TrimPrefix(s, "/")
	default:
		return true
	}
	if !strings.HasSuffix(file, ".php") || strings.HasPrefix(file, "../") {
		return true
	}
	e.f.RouteFiles = append(e.f.RouteFiles, RouteFile{File: file, Prefix: g.prefix,
		Middleware: append([]string(nil), g.middleware...), Name: g.name})
	return true
}

// routeBlock reads the statements of a group's closure.
func (e *x) routeBlock(body *sitter.Node, g *group) {
	for _, s := range named(body) {
		switch s.Type() {
		case "expression_statement":
			e.routeStmt(s, g)
		case "compound_statement", "if_statement", "else_clause":
			e.routeBlock(s, g)
		}
	}
}

// groupAttrs reads Route::group's attribute array.
func (e *x) groupAttrs(g *group, arr *sitter.Node) {
	e.entries(arr, func(k string, v *sitter.Node) {
		switch k {
		case "prefix":
			if s, ok := e.str(v); ok {
				g.prefix = appgraph.JoinURI(g.prefix, s)
			}
		case "as":
			if s, ok := e.str(v); ok {
				g.name += s
			}
		case "middleware":
			g.middleware = append(g.middleware, e.strs(v)...)
		case "namespace":
			if s, ok := e.str(v); ok {
				g.namespace = joinNS(g.namespace, s)
			}
		}
	})
}

func joinNS(a, b string) string {
	if b == "" {
		return a
	}
	if strings.HasPrefix(b, `\`) || a == "" {
		return strings.TrimPrefix(b, `\`)
	}
	return a + `\` + b
}

// routes emits the routes of one registration chain; links[at] is the verb.
func (e *x) routes(stmt *sitter.Node, links []link, at int, g *group) {
	l := links[at]
	as := args(l.call)
	r := Route{Middleware: append([]string(nil), g.middleware...), Span: e.span(stmt)}
	var only, except []string
	var names = map[string]string{}
	for _, m := range links[at+1:] {
		ma := args(m.call)
		switch m.name {
		case "name":
			if s, ok := e.str(argOrNil(ma, 0)); ok {
				r.Name = s
			}
		case "middleware":
			for _, a := range ma {
				r.Middleware = append(r.Middleware, e.strs(a)...)
			}
		case "only":
			for _, a := range ma {
				only = append(only, e.strs(a)...)
			}
		case "except":
			for _, a := range ma {
				except = append(except, e.strs(a)...)
			}
		case "names":
			if a := argOrNil(ma, 0); a != nil {
				for _, p := range e.pairs(a) {
					k, v, _ := strings.Cut(p, ":")
					names[k] = v
				}
			}
		}
	}
	switch l.name {
	case "resource", "apiResource":
		uri, _ := e.str(argOrNil(as, 0))
		ctrl := e.action(argOrNil(as, 1), g).Controller
		e.resource(r, g, uri, ctrl, l.name == "apiResource", only, except, names)
		return
	case "resources", "apiResources":
		if arr := argOrNil(as, 0); arr != nil && arr.Type() == "array_creation_expression" {
			e.entries(arr, func(uri string, v *sitter.Node) {
				e.resource(r, g, uri, e.action(v, g).Controller, l.name == "apiResources", only, except, names)
			})
		}
		return
	case "singleton", "apiSingleton":
		uri, _ := e.str(argOrNil(as, 0))
		ctrl := e.action(argOrNil(as, 1), g).Controller
		e.singleton(r, g, uri, ctrl, l.name == "apiSingleton", links[at+1:], only, except)
		return
	case "match":
		r.Methods = upper(e.strs(argOrNil(as, 0)))
		as = as[min(1, len(as)):]
	default:
		r.Methods = verbs()[l.name]
		if r.Methods == nil {
			return // not a route verb
		}
	}
	uri, ok := e.str(argOrNil(as, 0))
	if !ok {
		return
	}
	r.URI = "/" + appgraph.JoinURI(g.prefix, uri)
	if r.Name != "" {
		r.Name = g.name + r.Name
	}
	switch l.name {
	case "view":
		r.Action = "view"
	case "redirect", "permanentRedirect":
		r.Action = "redirect"
	default:
		a := e.action(argOrNil(as, 1), g)
		r.Controller, r.Action = a.Controller, a.Action
	}
	e.f.Routes = append(e.f.Routes, r)
}

func upper(ss []string) []string {
	for i, s := range ss {
		ss[i] = strings.ToUpper(s)
	}
	return ss
}

// action resolves a route's action to a controller and method.
func (e *x) action(n *sitter.Node, g *group) Route {
	var r Route
	if n == nil {
		return r
	}
	switch n.Type() {
	case "array_creation_expression":
		var parts []*sitter.Node
		for _, el := range named(n) {
			if el.Type() == "array_element_initializer" {
				if v := firstNamed(el); v != nil {
					parts = append(parts, v)
				}
			}
		}
		if len(parts) >= 1 {
			r.Controller = e.classRef(parts[0])
			if r.Controller == "" {
				if s, ok := e.str(parts[0]); ok {
					r.Controller = e.controllerName(s, g)
				}
			}
		}
		if len(parts) >= 2 {
			r.Action, _ = e.str(parts[1])
		}
		if len(parts) == 1 {
			r.Action = "__invoke"
		}
	case "class_constant_access_expression":
		r.Controller, r.Action = e.classRef(n), "__invoke"
	case "string", "encapsed_string":
		s, _ := e.str(n)
		if c, m, ok := strings.Cut(s, "@"); ok {
			r.Controller, r.Action = e.controllerName(c, g), m
		} else if g.controller != "" {
			r.Controller, r.Action = g.controller, s
		} else if s != "" {
			r.Controller, r.Action = e.controllerName(s, g), "__invoke"
		}
	case "anonymous_function_creation_expression", "anonymous_function", "arrow_function":
		r.Action = "closure"
	}
	return r
}

// controllerName resolves a controller named in a string: through `use`
// when imported, else in the group's namespace under App\Http\Controllers
// (the RouteServiceProvider default of older apps).
func (e *x) controllerName(s string, g *group) string {
	s = strings.TrimPrefix(s, `\`)
	if full, ok := e.uses[strings.ToLower(s)]; ok {
		return full
	}
	if strings.HasPrefix(s, `App\`) {
		return s
	}
	ns := g.namespace
	if !strings.HasPrefix(ns, `App\`) {
		ns = joinNS(`App\Http\Controllers`, ns)
	}
	return joinNS(ns, s)
}

// resource expands Route::resource / apiResource.
func (e *x) resource(r Route, g *group, uri, ctrl string, api bool, only, except []string, names map[string]string) {
	if uri == "" {
		return
	}
	segs := strings.Split(uri, ".")
	base := nestedURI(segs)
	param := singular(path.Base(strings.ReplaceAll(segs[len(segs)-1], "-", "_")))
	for _, ra := range resourceActions {
		if api && (ra.action == "create" || ra.action == "edit") {
			continue
		}
		if len(only) > 0 && !contains(only, ra.action) || contains(except, ra.action) {
			continue
		}
		name := uri + "." + ra.action
		if n, ok := names[ra.action]; ok {
			name = n
		}
		e.resourceRoute(r, g, ra.method, base+strings.ReplaceAll(ra.suffix, "%s", param), name, ctrl, ra.action)
	}
}

// resourceRoute emits one route of a resource or singleton: update
// answers PUT and PATCH, the GET actions HEAD too.
func (e *x) resourceRoute(r Route, g *group, method, uri, name, ctrl, action string) {
	r.Middleware = append([]string(nil), r.Middleware...)
	r.Methods = []string{method}
	switch action {
	case "update":
		r.Methods = []string{"PUT", "PATCH"}
	case "index", "show", "create", "edit":
		r.Methods = append(r.Methods, "HEAD")
	}
	r.URI = "/" + appgraph.JoinURI(g.prefix, uri)
	r.Name = g.name + name
	r.Controller, r.Action = ctrl, action
	e.f.Routes = append(e.f.Routes, r)
}

// nestedURI is the URI of a nested resource name: photos.comments is
// photos/{photo}/comments.
func nestedURI(segs []string) string {
	base := ""
	for i, s := range segs {
		if i < len(segs)-1 {
			base = appgraph.JoinURI(base, s+"/{"+singular(s)+"}")
		} else {
			base = appgraph.JoinURI(base, s)
		}
	}
	return base
}

// singletonActions are Route::singleton's actions in order: show, edit
// and update, and with ->creatable() create, store and destroy, with
// ->destroyable() destroy; apiSingleton leaves out the forms (create,
// edit).
var singletonActions = []struct {
	action, method, suffix string
}{
	{"create", "GET", "/create"}, {"store", "POST", ""}, {"show", "GET", ""}, {"edit", "GET", "/edit"},
	{"update", "PUT", ""}, {"destroy", "DELETE", ""},
}

// singleton expands Route::singleton / apiSingleton: one resource without
// an index or an id (/profile, /profile/edit); a nested name
// (photos.thumbnail) puts the parent's id before it.
func (e *x) singleton(r Route, g *group, uri, ctrl string, api bool, chain []link, only, except []string) {
	if uri == "" {
		return
	}
	creatable, destroyable := false, false
	for _, m := range chain {
		switch m.name {
		case "creatable":
			creatable = true
		case "destroyable":
			destroyable = true
		}
	}
	base := nestedURI(strings.Split(uri, "."))
	for _, sa := range singletonActions {
		switch {
		case sa.action == "create" || sa.action == "store":
			if !creatable || api && sa.action == "create" {
				continue
			}
		case sa.action == "destroy":
			if !creatable && !destroyable {
				continue
			}
		case sa.action == "edit" && api:
			continue
		}
		if len(only) > 0 && !contains(only, sa.action) || contains(except, sa.action) {
			continue
		}
		e.resourceRoute(r, g, sa.method, base+sa.suffix, uri+"."+sa.action, ctrl, sa.action)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// singular undoes Plural for resource parameters ("photos" -> "photo").
func singular(w string) string {
	for s, p := range irregular() {
		if p == w {
			return s
		}
	}
	switch {
	case uncountable()[w]:
		return w
	case strings.HasSuffix(w, "ies") && len(w) > 3:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss"):
		return w[:len(w)-1]
	}
	return w
}

// config reads config/*.php's returned array, one key per entry.
// A key's chunk starts at the comment block above it, where Laravel's
// config files document the key.
func (e *x) config(file string, arr *sitter.Node) {
	var doc *sitter.Node
	for _, el := range named(arr) {
		if el.Type() == "comment" {
			if doc == nil {
				doc = el
			}
			continue
		}
		vs := named(el)
		if el.Type() != "array_element_initializer" || len(vs) != 2 {
			doc = nil
			continue
		}
		if k, ok := e.str(vs[0]); ok {
			sp := e.span(el)
			if doc != nil {
				sp.StartByte, sp.StartLine = int(doc.StartByte()), e.line(int(doc.StartByte()))
			}
			e.f.Config = append(e.f.Config, ConfigKey{File: file, Key: k, Span: sp})
		}
		doc = nil
	}
}

// withRouting reads bootstrap/app.php's ->withRouting(api: ..., apiPrefix: ...):
// the api routes file gets the "api" prefix (or apiPrefix) and the api
// middleware group, the web file the web group.
func (e *x) withRouting(n *sitter.Node) {
	_, links := e.chain(n)
	for _, l := range links {
		if l.name != "withRouting" {
			continue
		}
		na := e.namedArgs(l.call)
		prefix := "api"
		if p, ok := e.str(na["apiPrefix"]); ok {
			prefix = p
		}
		for key, group := range map[string]string{"api": "api", "web": "web"} {
			v := na[key]
			if v == nil {
				continue
			}
			var file string
			if v.Type() == "binary_expression" {
				file, _ = e.str(v.ChildByFieldName("right"))
			} else {
				file, _ = e.str(v)
			}
			if i := strings.Index(file, "routes/"); i >= 0 {
				rf := RouteFile{File: file[i:], Middleware: []string{group}}
				if key == "api" {
					rf.Prefix = prefix
				}
				e.f.RouteFiles = append(e.f.RouteFiles, rf)
			}
		}
	}
}

// providerRoutes reads the route registrations of a service provider's
// methods (RouteServiceProvider::map*).
// ($this->routes(function () { Route::...; }) included).
func (e *x) providerRoutes(n *sitter.Node) {
	for _, s := range named(n) {
		if s.Type() == "expression_statement" {
			if c := firstNamed(s); c != nil {
				if head, _ := e.chain(c); routeHead(head) {
					e.routeStmt(s, &group{})
					continue
				}
			}
		}
		e.providerRoutes(s)
	}
}
