// Package django reads what a Python file of a Django application says
// about the application, from the tree-sitter parse the chunker already
// made: URLconfs (path/re_path/url, include() of other modules and of
// lists, app_name namespaces, Django REST framework routers), views
// (function views by module, class-based views and view sets with the
// models they name), models (table, fields, relations) and migrations
// (one fact per operation on a table). Extraction is pure; anything it
// does not recognise is left to the plain code chunks, and a URL pattern
// it cannot resolve (an f-string of another module's constant) is kept as
// written and noted. A model's bases are kept (Base, Mixins) so the graph
// gives it the fields and relations of its abstract bases. The facts are
// appgraph's, which joins every file's into the application's graph.
//
// Names are dotted paths from the workspace root (blog/views.py is
// blog.views, a class in it blog.views.PostDetail); a name as the code
// imports it (an absolute import from the project's own root) is matched
// to the class it names when the graph is built.
package django

import (
	"path"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
)

// The fact types, shared by every framework through appgraph.
type (
	Facts     = appgraph.Facts
	Span      = appgraph.Span
	Class     = appgraph.Class
	Method    = appgraph.Method
	Relation  = appgraph.Relation
	Route     = appgraph.Route
	RouteFile = appgraph.RouteFile
	Migration = appgraph.Migration
	Column    = appgraph.Column
	Foreign   = appgraph.Foreign
)

// x walks one file's tree.
type x struct {
	src    []byte
	path   string
	module string // dotted: blog.views
	pkg    string // the package relative imports start from: blog
	f      Facts
	names  map[string]string // a name bound by an import or a top-level class -> dotted name
	stars  []string          // the modules of `from m import *`
	lists  map[string]*sitter.Node
	ls     []int
	// Where is the construct being read, for a failure's line.
	appgraph.Where
}

// Extract reads the facts of the Python file at rel (slash path) from its
// tree-sitter root. It never fails: what it does not recognise it skips.
func Extract(root *sitter.Node, src []byte, rel string) *Facts {
	if root == nil {
		return &Facts{}
	}
	e := &x{src: src, path: rel, names: map[string]string{}, lists: map[string]*sitter.Node{}}
	defer e.Located(src)
	e.module, e.pkg = moduleOf(rel)
	e.ls = []int{0}
	for i, b := range src {
		if b == '\n' {
			e.ls = append(e.ls, i+1)
		}
	}
	e.top(root)
	return &e.f
}

// moduleOf is the dotted module of a file and the package its relative
// imports start from (blog/views.py: blog.views, blog;
// blog/__init__.py: blog, blog).
func moduleOf(rel string) (module, pkg string) {
	p := strings.TrimSuffix(rel, ".py")
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/__init__"), "__init__")
	module = strings.ReplaceAll(p, "/", ".")
	if strings.HasSuffix(rel, "__init__.py") {
		return module, module
	}
	if i := strings.LastIndexByte(module, '.'); i >= 0 {
		return module, module[:i]
	}
	return module, ""
}

// top reads the module's statements: imports first (a name may be used
// before a later import binds it only in functions, which run later), then
// what each statement declares.
func (e *x) top(root *sitter.Node) {
	stmts := named(root)
	var bind func(stmts []*sitter.Node)
	bind = func(stmts []*sitter.Node) {
		for _, c := range stmts {
			e.At = c.StartByte()
			def := c
			if c.Type() == "decorated_definition" {
				def = c.ChildByFieldName("definition")
			}
			if def == nil {
				continue
			}
			switch def.Type() {
			case "import_statement", "import_from_statement":
				e.imports(def)
			case "class_definition", "function_definition":
				name := e.text(def.ChildByFieldName("name"))
				e.names[name] = e.module + "." + name
			case "if_statement", "try_statement", "else_clause", "elif_clause", "except_clause", "finally_clause", "block":
				bind(named(def)) // if settings.DEBUG: from ... import ...
			case "expression_statement":
				if a := firstNamed(def); a != nil && a.Type() == "assignment" {
					if l, r := a.ChildByFieldName("left"), a.ChildByFieldName("right"); l != nil && r != nil && l.Type() == "identifier" {
						e.lists[e.text(l)] = r
					}
				}
			}
		}
	}
	bind(stmts)
	kind := e.fileKind()
	if kind == kindMigration {
		e.migrations(stmts)
	}
	e.urls(stmts)
	e.classes(stmts, kind)
	if len(e.f.Routes) > 0 || len(e.f.Migrations) > 0 || len(e.f.Classes) > 0 || len(e.f.RouteFiles) > 0 {
		for _, c := range stmts {
			e.f.Stmts = append(e.f.Stmts, e.span(c))
		}
	}
}

type fileKind int

const (
	kindOther fileKind = iota
	kindModels
	kindMigration
)

// fileKind tells models modules (models.py, models/*.py) and migrations
// (migrations/NNNN_name.py) by path.
func (e *x) fileKind() fileKind {
	dir, base := path.Split(e.path)
	parent := path.Base(strings.TrimSuffix(dir, "/"))
	switch {
	case parent == "migrations" && base != "__init__.py" && len(base) > 4 && isDigits(base[:4]):
		return kindMigration
	case base == "models.py" || parent == "models":
		return kindModels
	}
	return kindOther
}

// appLabel is Django's default label of the app a models module or
// migration belongs to: the name of the app's folder.
func (e *x) appLabel() string {
	dir := path.Dir(e.path)
	switch path.Base(dir) {
	case "models", "migrations":
		dir = path.Dir(dir)
	}
	if dir == "." || dir == "/" {
		return ""
	}
	return path.Base(dir)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// imports binds the names an import statement brings in to dotted names
// (relative imports resolved against the file's package).
func (e *x) imports(n *sitter.Node) {
	from := ""
	if n.Type() == "import_from_statement" {
		m := n.ChildByFieldName("module_name")
		if m == nil {
			return
		}
		from = e.absModule(e.text(m))
	}
	for _, c := range named(n) {
		if c == n.ChildByFieldName("module_name") {
			continue
		}
		var name, alias string
		switch c.Type() {
		case "wildcard_import":
			if from != "" {
				e.stars = append(e.stars, from)
			}
			continue
		case "dotted_name":
			name = e.text(c)
		case "aliased_import":
			name, alias = e.text(c.ChildByFieldName("name")), e.text(c.ChildByFieldName("alias"))
		default:
			continue
		}
		full := name
		if from != "" {
			full = from + "." + name
		}
		if alias == "" {
			alias = name
			if from == "" { // import a.b binds a
				alias, _, _ = strings.Cut(name, ".")
				full = alias
			}
		}
		e.names[alias] = full
	}
}

// absModule resolves a relative module (..core.models) against the file's package.
func (e *x) absModule(m string) string {
	dots := len(m) - len(strings.TrimLeft(m, "."))
	if dots == 0 {
		return m
	}
	base := e.pkg
	for i := 1; i < dots; i++ {
		if j := strings.LastIndexByte(base, '.'); j >= 0 {
			base = base[:j]
		} else {
			base = ""
		}
	}
	rest := m[dots:]
	switch {
	case base == "":
		return rest
	case rest == "":
		return base
	}
	return base + "." + rest
}

// resolve turns a name as written (Post, models.Post, blog.models.Post)
// into a dotted one through the file's imports and classes (a class name
// no import binds, through the file's one `from m import *`); "" when the
// file binds no part of it.
func (e *x) resolve(name string) string {
	first, rest, dotted := strings.Cut(name, ".")
	full, ok := e.names[first]
	if !ok && len(e.stars) == 1 && isUpper(first) {
		full, ok = e.stars[0]+"."+first, true
	}
	if !ok {
		return ""
	}
	if dotted {
		return full + "." + rest
	}
	return full
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

func (e *x) span(n *sitter.Node) Span {
	end := int(n.EndByte())
	last := max(end-1, int(n.StartByte()))
	return Span{StartByte: int(n.StartByte()), EndByte: end, StartLine: e.line(int(n.StartByte())), EndLine: e.line(last)}
}

// named lists n's named children. A cursor walks them in one pass.
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

func firstNamed(n *sitter.Node) *sitter.Node {
	if ns := named(n); len(ns) > 0 {
		return ns[0]
	}
	return nil
}

// str is the value of a string literal ('a', r"a", 'a' 'b'); ok is false
// for anything else (f-strings included: their value is not in the code).
func (e *x) str(n *sitter.Node) (string, bool) {
	if n == nil {
		return "", false
	}
	switch n.Type() {
	case "string":
		t := e.text(n)
		i := strings.IndexAny(t, `'"`)
		if i < 0 || strings.ContainsAny(strings.ToLower(t[:i]), "f") {
			return "", false
		}
		q := t[i:]
		for _, d := range []string{`"""`, `'''`, `"`, `'`} {
			if len(q) >= 2*len(d) && strings.HasPrefix(q, d) && strings.HasSuffix(q, d) {
				return q[len(d) : len(q)-len(d)], true
			}
		}
		return "", false
	case "concatenated_string":
		var b strings.Builder
		for _, c := range named(n) {
			s, ok := e.str(c)
			if !ok {
				return "", false
			}
			b.WriteString(s)
		}
		return b.String(), true
	case "parenthesized_expression":
		return e.str(firstNamed(n))
	}
	return "", false
}

// call splits a call into the callee as written (models.ForeignKey), its
// positional arguments and its keyword arguments; ok is false when n is
// not a call.
func (e *x) call(n *sitter.Node) (fn string, args []*sitter.Node, kw map[string]*sitter.Node, ok bool) {
	if n == nil || n.Type() != "call" {
		return "", nil, nil, false
	}
	fn = e.text(n.ChildByFieldName("function"))
	kw = map[string]*sitter.Node{}
	a := n.ChildByFieldName("arguments")
	if a == nil || a.Type() != "argument_list" {
		return fn, nil, kw, true
	}
	for _, c := range named(a) {
		if c.Type() == "keyword_argument" {
			kw[e.text(c.ChildByFieldName("name"))] = c.ChildByFieldName("value")
			continue
		}
		args = append(args, c)
	}
	return fn, args, kw, true
}

// arg is the i-th positional argument or the keyword argument name.
func arg(args []*sitter.Node, kw map[string]*sitter.Node, i int, name string) *sitter.Node {
	if v, ok := kw[name]; ok {
		return v
	}
	if i >= 0 && i < len(args) {
		return args[i]
	}
	return nil
}

// lastPart is the name after the last dot.
func lastPart(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }
