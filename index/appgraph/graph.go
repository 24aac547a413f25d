package appgraph

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Node is one stop of a walk over the application graph.
type Node struct {
	Type      string `json:"type"` // route, controller, controller_method, model, model_relation, table, migration
	Name      string `json:"name"`
	Path      string `json:"path,omitempty"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	// Via says how the walk reached the node from the one before it.
	Via    string `json:"via,omitempty"`
	Detail string `json:"detail,omitempty"`
}

type located[T any] struct {
	path string
	v    T
}

// Graph joins the facts of every file of the application.
type Graph struct {
	classes    map[string]located[Class] // by fully qualified name
	routes     []located[Route]
	migrations []located[Migration] // in path order (Laravel runs them in file-name order)
	routeFiles []located[RouteFile]
	// unresolved maps a class (by lower-case FQN) whose chain of bases
	// leaves the index to the first base it does not hold.
	unresolved map[string]string
	rels       map[string][]relationAt // relations(), by lower-case FQN
	prepared   bool
}

// NewGraph returns an empty graph; Add files to it.
func NewGraph() *Graph {
	return &Graph{classes: map[string]located[Class]{}, unresolved: map[string]string{}, rels: map[string][]relationAt{}}
}

// AddRecord adds a file's stored facts (the JSON of Facts).
func (g *Graph) AddRecord(path string, data []byte) error {
	var f Facts
	if err := json.Unmarshal(data, &f); err != nil {
		return fmt.Errorf("framework facts of %s: %w (run `dossier index` again)", path, err)
	}
	g.Add(path, &f)
	return nil
}

// Add adds one file's facts.
func (g *Graph) Add(path string, f *Facts) {
	for _, c := range f.Classes {
		if c.FQN != "" {
			g.classes[strings.ToLower(c.FQN)] = located[Class]{path, c}
		}
	}
	for _, r := range f.Routes {
		g.routes = append(g.routes, located[Route]{path, r})
	}
	for _, rf := range f.RouteFiles {
		g.routeFiles = append(g.routeFiles, located[RouteFile]{path, rf})
	}
	for _, m := range f.Migrations {
		if m.Down {
			continue // a rollback is no step of the table's history
		}
		g.migrations = append(g.migrations, located[Migration]{path, m})
	}
	sort.SliceStable(g.migrations, func(i, j int) bool {
		return migrationOrder(g.migrations[i].path) < migrationOrder(g.migrations[j].path)
	})
}

// migrationOrder sorts by file name: Laravel runs migrations in that order
// whatever their folder.
func migrationOrder(p string) string { return p[strings.LastIndexByte(p, '/')+1:] + "\x00" + p }

// Empty reports whether the graph holds nothing.
func (g *Graph) Empty() bool {
	return len(g.classes) == 0 && len(g.routes) == 0 && len(g.migrations) == 0
}

// IsTarget reports whether s names a graph target (route:, table:, model:,
// controller:).
func IsTarget(s string) bool {
	kind, _, ok := strings.Cut(s, ":")
	if !ok {
		return false
	}
	switch kind {
	case "route", "table", "model", "controller":
		return true
	}
	return false
}

// walk collects nodes once each.
type walk struct {
	g     *Graph
	nodes []Node
	seen  map[string]bool
}

func (w *walk) add(n Node) bool {
	k := n.Type + "\x00" + n.Name + "\x00" + n.Path
	if w.seen[k] {
		return false
	}
	w.seen[k] = true
	w.nodes = append(w.nodes, n)
	return true
}

// Walk answers a target: route:NAME, route:URI, "route:METHOD URI",
// table:NAME, model:Name, controller:Name[@method].
func (g *Graph) Walk(target string) ([]Node, error) {
	kind, arg, _ := strings.Cut(target, ":")
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return nil, fmt.Errorf("%s: give a name after %q", target, kind+":")
	}
	g.prepare()
	w := &walk{g: g, seen: map[string]bool{}}
	switch kind {
	case "route":
		rs := g.findRoutes(arg)
		if len(rs) == 0 {
			return nil, fmt.Errorf("no route %q in the index: give a route name (invoices.store), a URI (/invoices/{invoice}) or \"METHOD URI\"", arg)
		}
		for _, r := range rs {
			w.route(r, "")
		}
	case "table":
		if !g.hasTable(arg) {
			return nil, fmt.Errorf("no table %q in the index: no migration creates or alters it and no model maps to it", arg)
		}
		w.table(arg, "", true)
	case "model":
		ms := g.findClasses(arg, RoleModel)
		if len(ms) == 0 {
			if why := g.unresolvedNamed(arg); why != "" {
				return nil, fmt.Errorf("no model %q in the index: the role of %s", arg, why)
			}
			return nil, fmt.Errorf("no model %q in the index: give the class name (Invoice, Post) or its fully qualified name (App\\Models\\Invoice, blog.models.Post)", arg)
		}
		for _, m := range ms {
			w.model(m, "", true)
		}
	case "controller":
		name, method, _ := strings.Cut(arg, "@")
		cs := g.findClasses(name, RoleController)
		if i := strings.LastIndexByte(name, '.'); len(cs) == 0 && i > 0 && method == "" {
			// blog.views.post_detail: a function view of a module
			name, method = name[:i], name[i+1:]
			cs = g.findClasses(name, RoleController)
		}
		if len(cs) == 0 {
			given, _, _ := strings.Cut(arg, "@")
			if why := g.unresolvedNamed(given); why != "" {
				return nil, fmt.Errorf("no controller %q in the index: the role of %s", given, why)
			}
			return nil, fmt.Errorf("no controller %q in the index: give the class name (InvoiceController, PostDetail), its fully qualified name, "+
				"a module of function views (blog.views, blog.views@post_list) or a handler module (controllers/user.controller)", given)
		}
		for _, c := range cs {
			w.controller(c, method)
		}
	default:
		return nil, fmt.Errorf("%q: graph targets are route:, table:, model: and controller:", target)
	}
	return w.nodes, nil
}

// short is a class's name without its namespace (App\Models\User) or
// module (blog.models.Post), or a JavaScript module's without its folders
// (src/controllers/user.controller); a Next.js page or route module keeps
// them: its folders are its name.
func short(fqn string) string {
	if strings.Contains(fqn, "/") {
		s := fqn[strings.LastIndexByte(fqn, '/')+1:]
		if s == "page" || s == "route" {
			return fqn
		}
		return s
	}
	return fqn[strings.LastIndexAny(fqn, `\.`)+1:]
}

func normURI(u string) string { return "/" + strings.Trim(u, "/") }

// sameURI compares a route's URI with one a user typed; a parameter
// matches a parameter whatever its name or notation: Laravel's {user},
// Express's :id and Next.js's [id] are one.
func sameURI(typed, uri string) bool {
	typed = normURI(typed)
	if typed == uri {
		return true
	}
	a, b := strings.Split(typed, "/"), strings.Split(uri, "/")
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(isParam(a[i]) && isParam(b[i])) {
			return false
		}
	}
	return true
}

// isParam reports whether a URI segment is a parameter: Express's :id,
// Laravel's {id}, Next's [id], Django's <int:pk> or <pk>.
func isParam(seg string) bool {
	return strings.HasPrefix(seg, ":") || strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") ||
		strings.HasPrefix(seg, "[") && strings.HasSuffix(seg, "]") || strings.HasPrefix(seg, "<") && strings.HasSuffix(seg, ">")
}

func (g *Graph) findRoutes(arg string) []located[Route] {
	var byName, byURI []located[Route]
	method, uri, hasMethod := strings.Cut(arg, " ")
	for _, r := range g.routes {
		if r.v.Name == arg {
			byName = append(byName, r)
			continue
		}
		if hasMethod {
			if sameURI(strings.TrimSpace(uri), r.v.URI) && hasVerb(r.v.Methods, strings.ToUpper(method)) {
				byURI = append(byURI, r)
			}
		} else if sameURI(arg, r.v.URI) {
			byURI = append(byURI, r)
		}
	}
	if len(byName) > 0 {
		return byName
	}
	return byURI
}

func hasVerb(ms []string, m string) bool {
	for _, x := range ms {
		if x == m || x == "ANY" {
			return true
		}
	}
	return false
}

// findClasses matches a short or fully qualified class name of a role.
func (g *Graph) findClasses(name, role string) []located[Class] {
	name = strings.TrimPrefix(name, `\`)
	if c, ok := g.classes[strings.ToLower(name)]; ok && c.v.Role == role {
		return []located[Class]{c}
	}
	if m := moduleName(name); m != name { // a module's file: src/controllers/user.controller.js
		if c, ok := g.classes[strings.ToLower(m)]; ok && c.v.Role == role {
			return []located[Class]{c}
		}
	}
	var out []located[Class]
	// A module's path may be given from any folder down (handlers/admin
	// for src/handlers/admin); a dotted name (blog.views.PostDetail) may
	// leave out the folders above the Python project's root.
	tail := "/" + strings.ToLower(moduleName(name))
	suffix := "." + strings.ToLower(name)
	slashed, dotted := strings.Contains(name, "/"), strings.Contains(name, ".")
	for k, c := range g.classes {
		if c.v.Role == role && (strings.EqualFold(c.v.Name, name) || slashed && strings.HasSuffix(strings.ToLower(c.v.FQN), tail) ||
			dotted && !slashed && strings.HasSuffix(k, suffix)) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func (g *Graph) hasTable(t string) bool {
	for _, m := range g.migrations {
		if m.v.Table == t || m.v.To == t {
			return true
		}
	}
	for _, c := range g.classes {
		if c.v.Role == RoleModel && c.v.Table == t {
			return true
		}
	}
	return false
}

func (g *Graph) modelsOfTable(t string) []located[Class] {
	var out []located[Class]
	for _, c := range g.classes {
		if c.v.Role == RoleModel && c.v.Table == t {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out
}

func classNode(c located[Class], via string) Node {
	return Node{Type: c.v.Role, Name: c.v.FQN, Path: c.path, StartLine: c.v.StartLine, EndLine: c.v.EndLine, Via: via}
}

func routeNode(r located[Route], via string) Node {
	name := strings.Join(r.v.Methods, "|") + " " + r.v.URI
	detail := r.v.Name
	if r.v.Controller != "" && r.v.Action == "" {
		detail = strings.TrimSpace(detail + " -> " + short(r.v.Controller))
	} else if r.v.Controller != "" {
		detail = strings.TrimSpace(detail + " -> " + short(r.v.Controller) + "@" + r.v.Action)
	} else if r.v.Action != "" {
		detail = strings.TrimSpace(detail + " -> " + r.v.Action)
	}
	if len(r.v.Middleware) > 0 {
		detail += " [" + strings.Join(r.v.Middleware, ", ") + "]"
	}
	return Node{Type: "route", Name: name, Path: r.path, StartLine: r.v.StartLine, EndLine: r.v.EndLine, Via: via, Detail: detail}
}

func (w *walk) route(r located[Route], via string) {
	w.add(routeNode(r, via))
	if r.v.Controller == "" {
		return
	}
	c, ok := w.g.classes[strings.ToLower(r.v.Controller)]
	if !ok {
		w.add(Node{Type: "controller", Name: r.v.Controller, Via: "action (not in the workspace)"})
		return
	}
	w.add(classNode(c, "action of the route"))
	if r.v.Action == "" { // a class-based view: every handler it defines
		for _, m := range c.v.Methods {
			w.method(c, m)
		}
		w.classUses(c)
		return
	}
	found := false
	for _, m := range c.v.Methods {
		if m.Name == r.v.Action {
			w.method(c, m)
			found = true
		}
	}
	if !found {
		w.add(Node{Type: "controller_method", Name: c.v.FQN + "@" + r.v.Action, Via: "not defined in " + short(c.v.FQN) + " (inherited, or missing)"})
		w.classUses(c)
	}
}

// method adds a controller method and the models it names, with their tables.
func (w *walk) method(c located[Class], m Method) {
	w.add(Node{Type: "controller_method", Name: c.v.FQN + "@" + m.Name, Path: c.path, StartLine: m.StartLine, EndLine: m.EndLine,
		Via: "method of " + short(c.v.FQN)})
	for _, u := range m.Uses {
		if mc, ok := w.g.classes[strings.ToLower(u)]; ok && mc.v.Role == RoleModel {
			w.model(mc, "used by "+short(c.v.FQN)+"@"+m.Name, false)
		}
	}
}

// model adds a model (with where its chain of bases left the index), its
// table (and that table's migrations) and, when full, its fields and
// relations, its lineage's included (see lineage), the relations' models
// and the controllers that use it.
func (w *walk) model(c located[Class], via string, full bool) {
	n := classNode(c, via)
	n.Detail = w.g.chainNote(c)
	if !w.add(n) && !full {
		return
	}
	if c.v.Table != "" {
		w.table(c.v.Table, "table of "+short(c.v.FQN), false)
	}
	if full {
		for _, f := range w.g.fieldNodes(c) {
			w.add(f)
		}
	}
	for _, r := range w.g.relations(c) {
		if !full {
			continue
		}
		w.add(r.node(c))
		if t, ok := w.g.classes[strings.ToLower(r.Target)]; ok {
			w.add(classNode(t, r.Type+" via "+short(c.v.FQN)+"::"+r.Method))
		}
	}
	if !full {
		return
	}
	for _, k := range w.g.sortedClasses() {
		if k.v.Role != RoleController {
			continue
		}
		if names(k.v.Uses, c.v.FQN) {
			w.add(classNode(k, "uses "+short(c.v.FQN)))
			w.inherited(k, "")
		}
		for _, m := range k.v.Methods {
			for _, u := range m.Uses {
				if strings.EqualFold(u, c.v.FQN) {
					w.add(Node{Type: "controller_method", Name: k.v.FQN + "@" + m.Name, Path: k.path, StartLine: m.StartLine,
						EndLine: m.EndLine, Via: "uses " + short(c.v.FQN)})
					for _, r := range w.g.routes {
						if strings.EqualFold(r.v.Controller, k.v.FQN) && r.v.Action == m.Name {
							w.add(routeNode(r, "served by "+short(k.v.FQN)+"@"+m.Name))
						}
					}
				}
			}
		}
	}
}

func (g *Graph) sortedClasses() []located[Class] {
	out := make([]located[Class], 0, len(g.classes))
	for _, c := range g.classes {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].path < out[j].path || out[i].path == out[j].path && out[i].v.StartByte < out[j].v.StartByte
	})
	return out
}

// table adds a table node (what its migrations did, in order), the
// migrations and, when full, its models and the models related to them.
func (w *walk) table(t, via string, full bool) {
	var ms []located[Migration]
	for _, m := range w.g.migrations {
		if m.v.Table == t || m.v.To == t {
			ms = append(ms, m)
		}
	}
	tn := Node{Type: "table", Name: t, Via: via, Detail: tableDetail(t, ms)}
	if len(ms) > 0 {
		tn.Path, tn.StartLine, tn.EndLine = ms[0].path, ms[0].v.StartLine, ms[0].v.EndLine
	}
	if !w.add(tn) {
		return
	}
	for _, m := range ms {
		op := m.v.Op
		if m.v.To != "" {
			op += " to " + m.v.To
		}
		name := "Schema::" + op + " " + m.v.Table
		if m.v.Call != "" {
			name = strings.TrimSuffix(m.v.Call+" "+m.v.Table+" to "+m.v.To, " to ")
		}
		w.add(Node{Type: "migration", Name: name, Path: m.path, StartLine: m.v.StartLine,
			EndLine: m.v.EndLine, Via: "migration of " + t, Detail: migrationDetail(m.v)})
	}
	if !full {
		return
	}
	for _, mc := range w.g.modelsOfTable(t) {
		w.add(classNode(mc, "model of "+t))
		for _, r := range w.g.relations(mc) {
			if rc, ok := w.g.classes[strings.ToLower(r.Target)]; ok {
				w.add(classNode(rc, r.Type+" via "+short(mc.v.FQN)+"::"+r.Method))
			}
		}
		for _, oc := range w.g.sortedClasses() {
			if oc.v.Role != RoleModel {
				continue // a trait's relations are its models'
			}
			for _, r := range w.g.relations(oc) {
				if strings.EqualFold(r.Target, mc.v.FQN) && oc.v.FQN != mc.v.FQN {
					w.add(classNode(oc, r.Type+" "+short(mc.v.FQN)+" via "+short(oc.v.FQN)+"::"+r.Method))
				}
			}
		}
	}
}

func migrationDetail(m Migration) string {
	var parts []string
	for _, c := range m.Columns {
		parts = append(parts, c.Name+" "+c.Type)
	}
	s := strings.Join(parts, ", ")
	for _, fk := range m.Foreign {
		s += "; fk " + fk.Column + " -> " + fk.RefTable + "." + fk.RefColumn
	}
	if len(m.Dropped) > 0 {
		s += "; drops " + strings.Join(m.Dropped, ", ")
	}
	return strings.TrimPrefix(s, "; ")
}

// tableDetail is the table's columns after every migration, in order.
func tableDetail(t string, ms []located[Migration]) string {
	var cols []string
	idx := map[string]int{}
	for _, m := range ms {
		if m.v.Op == "drop" {
			cols, idx = nil, map[string]int{}
			continue
		}
		for _, d := range m.v.Dropped {
			if i, ok := idx[d]; ok {
				cols[i] = ""
				delete(idx, d)
			}
		}
		for _, c := range m.v.Columns {
			if i, ok := idx[c.Name]; ok {
				cols[i] = c.Name + " " + c.Type
				continue
			}
			idx[c.Name] = len(cols)
			cols = append(cols, c.Name+" "+c.Type)
		}
	}
	var out []string
	for _, c := range cols {
		if c != "" {
			out = append(out, c)
		}
	}
	return strings.Join(out, ", ")
}

// controller adds a controller, its methods (or one), the routes to them
// and the models they use with their tables.
func (w *walk) controller(c located[Class], method string) {
	w.add(classNode(c, ""))
	w.inherited(c, method)
	for _, m := range c.v.Methods {
		if method != "" && m.Name != method {
			continue
		}
		for _, r := range w.g.routes {
			if strings.EqualFold(r.v.Controller, c.v.FQN) && r.v.Action == m.Name {
				w.add(routeNode(r, "serves "+short(c.v.FQN)+"@"+m.Name))
			}
		}
		w.method(c, m)
	}
}

// Scope is the part of the workspace a set of walks reached: a chunk is
// in scope when it overlaps a node's lines (a table node counts through
// its migrations). It backs search's --route, --controller and --table.
type Scope struct {
	spans map[string][][2]int
	nodes []Node
}

// NewScope collects the spans of nodes.
func NewScope(nodes []Node) *Scope {
	s := &Scope{spans: map[string][][2]int{}, nodes: nodes}
	for _, n := range nodes {
		if n.Path != "" && n.Type != "table" {
			s.spans[n.Path] = append(s.spans[n.Path], [2]int{n.StartLine, n.EndLine})
		}
	}
	return s
}

// Nodes returns the nodes the walks reached, in walk order.
func (s *Scope) Nodes() []Node { return s.nodes }

// Holds reports whether lines start-end of path overlap a node.
func (s *Scope) Holds(path string, start, end int) bool {
	for _, sp := range s.spans[path] {
		if start <= sp[1] && end >= sp[0] {
			return true
		}
	}
	return false
}

// prepare applies what the code loading a route file (a
// RouteServiceProvider, bootstrap/app.php) gives its routes: the prefix
// and middleware. The loader names the file relative to the application
// root, which is where its composer.json is; the loader lives under it.
func (g *Graph) prepare() {
	if g.prepared {
		return
	}
	g.prepared = true
	g.resolveNames()
	g.inheritRoles()
	g.mountIncludes()
	g.migrationTables()
	// A route file mounted more than once (an Express router under /v1
	// and /v2) has its routes once per mount.
	for i, n := 0, len(g.routes); i < n; i++ {
		base := g.routes[i]
		for j, rf := range g.loadersOf(base.path, 0) {
			r := base
			r.v.URI = "/" + JoinURI(rf.Prefix, base.v.URI)
			r.v.Middleware = append(append([]string(nil), rf.Middleware...), base.v.Middleware...)
			if base.v.Name != "" { // Laravel prefixes named routes only
				r.v.Name = rf.Name + base.v.Name
			}
			if j == 0 {
				g.routes[i] = r
			} else {
				g.routes = append(g.routes, r)
			}
		}
	}
}

// loadersOf is what the loaders of the route file at p give its routes,
// one RouteFile per way the file is loaded: a loader's prefix, middleware
// and name prefix after what that loader's own loaders give it (an
// Express app mounts a router module that mounts others). The same
// attributes twice count once.
func (g *Graph) loadersOf(p string, depth int) []RouteFile {
	if depth > 16 {
		return nil
	}
	var out []RouteFile
	seen := map[string]bool{}
	add := func(rf RouteFile) {
		k := rf.Prefix + "\x00" + strings.Join(rf.Middleware, "\x01") + "\x00" + rf.Name
		if !seen[k] {
			seen[k] = true
			out = append(out, rf)
		}
	}
	for _, rf := range g.routeFiles {
		if rf.path == p || rf.v.Include || !loads(rf.path, rf.v.File, p) {
			continue
		}
		ups := g.loadersOf(rf.path, depth+1)
		if len(ups) == 0 {
			add(rf.v)
			continue
		}
		for _, up := range ups {
			v := rf.v
			v.Prefix = JoinURI(up.Prefix, v.Prefix)
			v.Middleware = append(append([]string(nil), up.Middleware...), v.Middleware...)
			v.Name = up.Name + v.Name
			add(v)
		}
	}
	return out
}

// loads reports whether the loader at loaderPath, naming file relative to
// its application root, loads the route file at routePath.
func loads(loaderPath, file, routePath string) bool {
	if m := moduleName(routePath); m != routePath && m == file {
		return true // a JavaScript module path, relative to the workspace root
	}
	if !strings.HasSuffix(routePath, file) {
		return false
	}
	root := strings.TrimSuffix(routePath, file) // "" or "sub/app/"
	return strings.HasPrefix(loaderPath, root)
}

// JoinURI joins two URI parts with one slash, without leading or trailing
// slashes.
func JoinURI(a, b string) string {
	a, b = strings.Trim(a, "/"), strings.Trim(b, "/")
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "/" + b
}

// Table is what the application says about one table: the walk of
// table:NAME (the table node, located at the migration that created it,
// then its migrations in order, its models and the models related to
// them).
type Table struct {
	Name  string
	Nodes []Node // Nodes[0] is the table itself
}

// Tables lists every table a migration creates, alters or renames to, or
// a model maps to, by name.
func (g *Graph) Tables() []Table {
	g.prepare()
	names := map[string]bool{}
	for _, m := range g.migrations {
		names[m.v.Table] = true
		if m.v.To != "" {
			names[m.v.To] = true
		}
	}
	for _, c := range g.classes {
		if c.v.Role == RoleModel && c.v.Table != "" {
			names[c.v.Table] = true
		}
	}
	out := make([]Table, 0, len(names))
	for t := range names {
		if t == "" {
			continue
		}
		w := &walk{g: g, seen: map[string]bool{}}
		w.table(t, "", true)
		out = append(out, Table{Name: t, Nodes: w.nodes})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// jsExts are the extensions a JavaScript module path leaves out.
var jsExts = []string{".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx"}

// moduleName is the module path of a JavaScript or TypeScript file (no
// extension, no trailing /index), as index/jsapp names controllers and
// mounted route files; other names are returned as they are.
func moduleName(p string) string {
	for _, ext := range jsExts {
		if strings.HasSuffix(p, ext) {
			p = strings.TrimSuffix(p, ext)
			if strings.HasSuffix(p, "/index") {
				p = strings.TrimSuffix(p, "/index")
			}
			return p
		}
	}
	return p
}
