package django

import (
	"fmt"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
)

// viewSetActions are the routes a Django REST framework router gives a
// registered view set: the list route and the detail route.
var viewSetActions = []struct{ method, action, suffix, name string }{
	{"GET", "list", "", "list"},
	{"POST", "create", "", "list"},
	{"GET", "retrieve", "<pk>", "detail"},
	{"PUT", "update", "<pk>", "detail"},
	{"PATCH", "partial_update", "<pk>", "detail"},
	{"DELETE", "destroy", "<pk>", "detail"},
}

// registration is a router.register(prefix, ViewSet, basename=...) call.
type registration struct {
	prefix, viewSet, basename string
	span                      Span
}

// urlconf is what one module's URLconf reading keeps.
type urlconf struct {
	appName string
	routers map[string][]registration // router variable -> registrations
}

// urls reads the module's URLconf: urlpatterns (assigned, extended, added
// to; under `if settings.DEBUG:` too) and the routers it includes.
func (e *x) urls(stmts []*sitter.Node) {
	u := &urlconf{routers: map[string][]registration{}}
	var patterns []*sitter.Node
	var scan func(stmts []*sitter.Node)
	scan = func(stmts []*sitter.Node) {
		for _, c := range stmts {
			e.At = c.StartByte()
			switch c.Type() {
			case "if_statement", "try_statement", "else_clause", "elif_clause", "block":
				scan(named(c))
				continue
			case "expression_statement":
			default:
				continue
			}
			s := firstNamed(c)
			if s == nil {
				continue
			}
			switch s.Type() {
			case "assignment", "augmented_assignment":
				l, r := e.text(s.ChildByFieldName("left")), s.ChildByFieldName("right")
				switch {
				case l == "app_name":
					u.appName, _ = e.str(r)
				case l == "urlpatterns" && r != nil:
					patterns = append(patterns, r)
				default:
					if fn, _, _, ok := e.call(r); ok && strings.HasSuffix(lastPart(fn), "Router") {
						u.routers[l] = nil
					}
				}
			case "call":
				fn, args, kw, _ := e.call(s)
				obj, method, _ := strings.Cut(fn, ".")
				switch {
				case obj == "urlpatterns" && (method == "extend" || method == "append") && len(args) > 0:
					patterns = append(patterns, args[0])
				case method == "register":
					if _, ok := u.routers[obj]; ok {
						p, _ := e.str(arg(args, kw, 0, "prefix"))
						b, _ := e.str(arg(args, kw, 2, "basename"))
						if b == "" {
							b, _ = e.str(kw["base_name"])
						}
						vs := e.view(arg(args, kw, 1, "viewset"))
						if vs != "" {
							u.routers[obj] = append(u.routers[obj], registration{p, vs, b, e.span(s)})
						}
					}
				}
			}
		}
	}
	scan(stmts)
	if len(patterns) == 0 {
		return
	}
	ns := ""
	if u.appName != "" {
		ns = u.appName + ":"
	}
	for _, p := range patterns {
		e.patterns(u, p, "", ns, 0)
	}
}

// patterns reads a list of URL patterns (a list, a tuple, a + b, a name
// bound to a list at module level, router.urls) under a URI prefix and a
// namespace prefix.
func (e *x) patterns(u *urlconf, n *sitter.Node, prefix, ns string, depth int) {
	if n == nil || depth > 8 {
		return
	}
	switch n.Type() {
	case "list", "tuple", "parenthesized_expression":
		for _, c := range named(n) {
			e.pattern(u, c, prefix, ns, depth)
		}
	case "binary_operator":
		e.patterns(u, n.ChildByFieldName("left"), prefix, ns, depth+1)
		e.patterns(u, n.ChildByFieldName("right"), prefix, ns, depth+1)
	case "identifier":
		if l, ok := e.lists[e.text(n)]; ok {
			e.patterns(u, l, prefix, ns, depth+1)
		}
	case "attribute":
		if obj, attr, _ := strings.Cut(e.text(n), "."); attr == "urls" {
			if regs, ok := u.routers[obj]; ok {
				e.routerRoutes(regs, prefix, ns)
			}
		}
	case "call": // format_suffix_patterns([...])
		if _, args, _, ok := e.call(n); ok && len(args) > 0 {
			e.patterns(u, args[0], prefix, ns, depth+1)
		}
	}
}

// pattern reads one path()/re_path()/url() entry.
func (e *x) pattern(u *urlconf, n *sitter.Node, prefix, ns string, depth int) {
	e.At = n.StartByte()
	fn, args, kw, ok := e.call(n)
	if !ok {
		return
	}
	kind := lastPart(fn)
	if kind != "path" && kind != "re_path" && kind != "url" {
		return
	}
	view := arg(args, kw, 1, "view")
	inc := e.include(view)
	at := arg(args, kw, 0, "route")
	if at == nil {
		at = arg(args, kw, 0, "regex")
	}
	route, ok := e.route(at)
	if !ok && at != nil {
		// A prefix the code computes (path(settings.BASE_PATH,
		// include(...))) is taken as empty, its usual value; a route's
		// pattern is kept as written. Either is noted.
		what := "the prefix is taken as empty"
		if inc == nil {
			route = "{" + e.text(at) + "}"
			what = fmt.Sprintf("the route is kept as %q", route)
		}
		e.f.Notes = append(e.f.Notes, Note{Line: e.line(int(at.StartByte())),
			Text: fmt.Sprintf("URL pattern %s is no string the module spells out; %s", e.text(at), what)})
	} else if !ok {
		return
	}
	if kind != "path" {
		route = strings.TrimSuffix(strings.TrimPrefix(route, "^"), "$")
	}
	uri := appgraph.JoinURI(prefix, route)
	if inc != nil {
		e.mount(u, inc, uri, ns, depth)
		return
	}
	name, _ := e.str(arg(args, kw, 3, "name"))
	if name != "" {
		name = ns + name
	}
	e.viewRoutes(view, "/"+uri, name, e.span(n))
}

// include is the include(...) call a view argument is, if it is one.
func (e *x) include(n *sitter.Node) *sitter.Node {
	if fn, _, _, ok := e.call(n); ok && lastPart(fn) == "include" {
		return n
	}
	return nil
}

// mount reads include(...) under uri: of a module ('blog.urls', an
// imported urls module), of a list, of router.urls, of (patterns, app_name).
func (e *x) mount(u *urlconf, inc *sitter.Node, uri, ns string, depth int) {
	_, args, kw, _ := e.call(inc)
	target := arg(args, kw, 0, "arg")
	if target == nil {
		return
	}
	if target.Type() == "tuple" || target.Type() == "parenthesized_expression" {
		parts := named(target)
		if len(parts) == 2 {
			if app, ok := e.str(parts[1]); ok {
				ns += app + ":"
			}
			target = parts[0]
		}
	}
	module, ok := e.str(target)
	if !ok && (target.Type() == "identifier" || target.Type() == "attribute") {
		if _, isList := e.lists[e.text(target)]; !isList && !strings.HasSuffix(e.text(target), ".urls") {
			module = e.resolve(e.text(target)) // from blog import urls as blog_urls
		}
	}
	if module != "" {
		e.f.RouteFiles = append(e.f.RouteFiles, RouteFile{File: strings.ReplaceAll(module, ".", "/") + ".py",
			Prefix: uri, Name: ns, Include: true})
		return
	}
	e.patterns(u, target, uri, ns, depth+1)
}

// viewRoutes adds the routes of a path() view: a function view
// (views.post_detail), a class-based view (PostDetail.as_view()), a view
// set's actions (PostViewSet.as_view({'get': 'list'})), through
// decorators (login_required(views.x)).
func (e *x) viewRoutes(n *sitter.Node, uri, name string, sp Span) {
	for range 4 {
		if n == nil {
			return
		}
		switch n.Type() {
		case "identifier", "attribute":
			if strings.HasSuffix(e.text(n), ".urls") {
				return // admin.site.urls: another application's URLconf
			}
			full := e.qualify(e.text(n))
			r := Route{Methods: []string{"ANY"}, URI: uri, Name: name, Action: full, Span: sp}
			if i := strings.LastIndexByte(full, '.'); i > 0 { // views.post_detail: the module's function
				r.Controller, r.Action = full[:i], full[i+1:]
			}
			e.f.Routes = append(e.f.Routes, r)
			return
		case "lambda":
			e.f.Routes = append(e.f.Routes, Route{Methods: []string{"ANY"}, URI: uri, Name: name, Action: "lambda", Span: sp})
			return
		case "call":
			fn, args, kw, _ := e.call(n)
			if cls, ok := strings.CutSuffix(fn, ".as_view"); ok {
				full := e.qualify(cls)
				if actions := arg(args, kw, 0, "actions"); actions != nil && actions.Type() == "dictionary" {
					for _, p := range named(actions) {
						m, _ := e.str(p.ChildByFieldName("key"))
						a, _ := e.str(p.ChildByFieldName("value"))
						if m != "" && a != "" {
							e.f.Routes = append(e.f.Routes, Route{Methods: []string{strings.ToUpper(m)}, URI: uri, Name: name,
								Controller: full, Action: a, Span: sp})
						}
					}
					return
				}
				e.f.Routes = append(e.f.Routes, Route{Methods: []string{"ANY"}, URI: uri, Name: name, Controller: full, Span: sp})
				return
			}
			if len(args) == 0 {
				return
			}
			n = args[0] // a decorator applied in place
		default:
			return
		}
	}
}

// qualify is the dotted name of a view as written, through the imports
// and the module's own functions and classes; as written when the file
// does not bind it.
func (e *x) qualify(name string) string {
	if full := e.resolve(name); full != "" {
		return full
	}
	return name
}

// view is the dotted name of a view set passed to router.register.
func (e *x) view(n *sitter.Node) string {
	if n == nil || n.Type() != "identifier" && n.Type() != "attribute" {
		return ""
	}
	return e.qualify(e.text(n))
}

// routerRoutes adds a router's routes under prefix: each view set's list
// and detail routes, named basename-list and basename-detail.
func (e *x) routerRoutes(regs []registration, prefix, ns string) {
	for _, r := range regs {
		for _, a := range viewSetActions {
			name := ""
			if r.basename != "" {
				name = ns + r.basename + "-" + a.name
			}
			uri := "/" + appgraph.JoinURI(appgraph.JoinURI(prefix, r.prefix), a.suffix)
			e.f.Routes = append(e.f.Routes, Route{Methods: []string{a.method}, URI: uri, Name: name,
				Controller: r.viewSet, Action: a.action, Span: r.span})
		}
	}
}
