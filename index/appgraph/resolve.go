package appgraph

import (
	"strings"
)

// resolveNames matches the dotted names Python code uses (blog.models.Post
// as imported from the project's root, in a reference or a base class, blog.models.Post re-exported by a
// models/ package) to the classes the graph holds under their path from
// the workspace root (src.blog.models.Post, blog.models.post.Post), and
// lets a method that names a serializer or form (Meta.model) reach its
// models. Names with a backslash (PHP) are left alone.
func (g *Graph) resolveNames() {
	byName := map[string][]string{}
	for _, c := range g.classes {
		byName[short(c.v.FQN)] = append(byName[short(c.v.FQN)], c.v.FQN)
	}
	res := func(refs []string) []string {
		for i, r := range refs {
			refs[i] = g.canonical(r, byName)
		}
		return refs
	}
	for k, c := range g.classes {
		c.v.Base = g.canonical(c.v.Base, byName)
		c.v.Mixins = res(c.v.Mixins)
		c.v.Uses = res(c.v.Uses)
		for i := range c.v.Methods {
			c.v.Methods[i].Uses = res(c.v.Methods[i].Uses)
		}
		for i := range c.v.Relations {
			c.v.Relations[i].Target = g.canonical(c.v.Relations[i].Target, byName)
		}
		g.classes[k] = c
	}
	for i := range g.routes {
		g.routes[i].v.Controller = g.canonical(g.routes[i].v.Controller, byName)
	}
	// One hop through serializers and forms: their Meta.model.
	through := func(uses []string) []string {
		for _, u := range uses {
			if c, ok := g.classes[strings.ToLower(u)]; ok && (c.v.Role == RoleResource || c.v.Role == RoleRequest) {
				for _, m := range c.v.Uses {
					if !names(uses, m) {
						uses = append(uses, m)
					}
				}
			}
		}
		return uses
	}
	for k, c := range g.classes {
		if c.v.Role != RoleController {
			continue
		}
		c.v.Uses = through(c.v.Uses)
		for i := range c.v.Methods {
			c.v.Methods[i].Uses = through(c.v.Methods[i].Uses)
		}
		g.classes[k] = c
	}
}

// canonical is the FQN of the class a dotted reference names, or the
// reference when no single class matches.
func (g *Graph) canonical(ref string, byName map[string][]string) string {
	if ref == "" || strings.ContainsRune(ref, '\\') || !strings.Contains(ref, ".") {
		return ref
	}
	if _, ok := g.classes[strings.ToLower(ref)]; ok {
		return ref
	}
	i := strings.LastIndexByte(ref, '.')
	mod, name := ref[:i], ref[i+1:]
	var suffix, pkg []string
	for _, fqn := range byName[name] {
		fmod := strings.TrimSuffix(fqn[:len(fqn)-len(name)], ".")
		switch {
		case fmod == mod || strings.HasSuffix(fmod, "."+mod):
			suffix = append(suffix, fqn)
		case strings.HasPrefix(fmod, mod+".") || strings.Contains(fmod, "."+mod+"."):
			pkg = append(pkg, fqn)
		}
	}
	switch {
	case len(suffix) == 1:
		return suffix[0]
	case len(suffix) == 0 && len(pkg) == 1:
		return pkg[0]
	}
	return ref
}

func names(refs []string, fqn string) bool {
	for _, r := range refs {
		if strings.EqualFold(r, fqn) {
			return true
		}
	}
	return false
}

// mount is what the includes above a URLconf give its routes.
type mount struct{ prefix, name string }

// mountIncludes applies Django's include()s: a module's routes are
// mounted under each chain of includes that reaches it from a module no
// one includes (the root URLconf), once per chain.
func (g *Graph) mountIncludes() {
	has := false
	for _, rf := range g.routeFiles {
		has = has || rf.v.Include
	}
	if !has {
		return
	}
	memo := map[string][]mount{}
	var out []located[Route]
	for _, r := range g.routes {
		ms := g.mountsOf(r.path, memo, 0)
		if len(ms) == 0 {
			out = append(out, r)
			continue
		}
		for _, m := range ms {
			x := r
			x.v.URI = "/" + JoinURI(m.prefix, r.v.URI)
			if x.v.Name != "" {
				x.v.Name = m.name + x.v.Name
			}
			out = append(out, x)
		}
	}
	g.routes = out
}

// mountsOf lists the chains of includes that mount the module at p.
func (g *Graph) mountsOf(p string, memo map[string][]mount, depth int) []mount {
	if ms, ok := memo[p]; ok || depth > 16 {
		return ms
	}
	memo[p] = nil // an include cycle ends here
	var out []mount
	for _, rf := range g.routeFiles {
		if !rf.v.Include || !includes(rf.path, rf.v.File, p) {
			continue
		}
		above := g.mountsOf(rf.path, memo, depth+1)
		if len(above) == 0 {
			above = []mount{{}}
		}
		for _, a := range above {
			out = append(out, mount{JoinURI(a.prefix, rf.v.Prefix), a.name + rf.v.Name})
		}
	}
	memo[p] = out
	return out
}

// includes reports whether the module file (blog/urls.py, as include()
// names it from the project's root) is the file at p (the module or its
// package's __init__.py) in the project the includer at loader is in.
func includes(loader, file, p string) bool {
	for _, f := range []string{file, strings.TrimSuffix(file, ".py") + "/__init__.py"} {
		if p == f {
			return true
		}
		if strings.HasSuffix(p, "/"+f) && strings.HasPrefix(loader, strings.TrimSuffix(p, f)) {
			return true
		}
	}
	return false
}

// migrationTables applies what earlier migrations set about a model's
// table (CreateModel's db_table, AlterModelTable) to the later operations
// that name the model, in migration order.
func (g *Graph) migrationTables() {
	tables := map[string]string{}
	for i := range g.migrations {
		m := &g.migrations[i].v
		if m.Model == "" {
			continue
		}
		conv := strings.Replace(m.Model, ".", "_", 1)
		if t, ok := tables[m.Model]; ok && m.Table == conv {
			m.Table = t
		}
		switch {
		case m.Op == "create" && m.Table != conv:
			tables[m.Model] = m.Table
		case m.Call == "AlterModelTable":
			tables[m.Model] = m.To
		}
	}
}

// classUses adds the models a class names outside its methods (a view's
// model or queryset), reached through a route whose handler it inherits.
func (w *walk) classUses(c located[Class]) {
	for _, u := range c.v.Uses {
		if mc, ok := w.g.classes[strings.ToLower(u)]; ok && mc.v.Role == RoleModel {
			w.model(mc, "named by "+short(c.v.FQN), false)
		}
	}
}

// inherited adds the routes to a controller that no method of its own
// serves (a class-based view's as_view(), a view set's inherited
// actions), with the models the class names.
func (w *walk) inherited(c located[Class], method string) {
	defined := map[string]bool{}
	for _, m := range c.v.Methods {
		defined[m.Name] = true
	}
	found := false
	for _, r := range w.g.routes {
		if !strings.EqualFold(r.v.Controller, c.v.FQN) || r.v.Action != "" && defined[r.v.Action] ||
			method != "" && r.v.Action != method {
			continue
		}
		via := "serves " + short(c.v.FQN)
		if r.v.Action != "" {
			via += "@" + r.v.Action + " (inherited)"
		}
		w.add(routeNode(r, via))
		found = true
	}
	if found {
		w.classUses(c)
	}
}
