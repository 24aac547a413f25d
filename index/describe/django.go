package describe

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/segment"
)

// djangoDescriber describes the units of a Django project that
// index/django recognised in a file (FileContext.App): one chunk per
// route (include() prefixes and namespaces as the file knows them; the
// graph applies the including modules'), per migration operation, and
// models, views (class-based views, view sets and function views) and
// their methods, serializers and forms under their source types. What it
// does not recognise stays with the code describer.
type djangoDescriber struct{}

func (djangoDescriber) Name() string { return "django" }
func (djangoDescriber) Description() string {
	return "Django: routes from urlpatterns (path/re_path/url, include(), app_name, REST framework routers), " +
		"models with table, fields and relations, migrations per operation, views and view sets and their methods, " +
		"function views, serializers, forms"
}

// djangoModule is the Base index/django gives the controller that stands
// for a module of function views.
const djangoModule = "module"

func (d djangoDescriber) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	f := fc.App
	if f.Empty() || f.Framework != "django" {
		return nil, false
	}
	var out []Section
	if !(seg.Kind == segment.Class && seg.Outline) {
		out = d.units(fc, seg)
	}
	switch seg.Kind {
	case segment.Class:
		if c := classAt(f, seg.Name, seg.StartByte, seg.EndByte); c != nil && c.Base != djangoModule && len(out) == 0 {
			return replacing{d.class(fc, seg, c)}, true
		}
	case segment.Method:
		if len(out) > 0 || len(seg.Parents) == 0 {
			break
		}
		if c := classAt(f, seg.Parents[len(seg.Parents)-1], seg.StartByte, seg.EndByte); c != nil && c.Role == appgraph.RoleController {
			return replacing{d.method(fc, seg, c)}, true
		}
	case segment.Function:
		if len(out) > 0 || len(seg.Parents) > 0 {
			break
		}
		for i := range f.Classes {
			if c := &f.Classes[i]; c.Base == djangoModule {
				for _, m := range c.Methods {
					if m.Name == seg.Name {
						return replacing{d.method(fc, seg, c)}, true
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, false
	}
	// One statement holds a whole urlpatterns list: what lies between the
	// routes (admin.site.urls, include()s) stays as code.
	out = append(out, gaps(fc, seg, out)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartByte < out[j].StartByte })
	return replacing(out), true
}

// units are the routes and migration operations inside seg.
func (d djangoDescriber) units(fc *FileContext, seg segment.Segment) []Section {
	f := fc.App
	var out []Section
	// A list include()d under two prefixes is one statement serving two
	// routes: the second and later get their URI in their key.
	served := map[string]bool{}
	for _, r := range f.Routes {
		if !within(r.Span, seg) {
			continue
		}
		route := strings.Join(r.Methods, "|") + " " + r.URI
		sym := r.Name
		if sym == "" {
			sym = route
		}
		action := r.Controller
		switch {
		case action == "":
			action = r.Action
		case r.Action != "":
			action += "@" + r.Action
		}
		fnd := finder("path", fc.Path, "framework", "django", "route", route, "name", r.Name, "view", action)
		// A router's list and detail routes share a name and a statement.
		key := "route-" + strings.ToLower(strings.Join(r.Methods, "-"))
		at := fmt.Sprint(key, sym, r.Span)
		if served[at] {
			key += "-" + r.URI
		}
		served[at] = true
		s := unitSection("django", fc, seg, KindRoute, lang.SrcRoute, sym, key, r.Span, fnd)
		// A router's registration stands for six routes and an include's
		// prefix is elsewhere: the chunk starts with the route as served.
		head := "# " + route
		if r.Name != "" {
			head += " (" + r.Name + ")"
		}
		s.Artifact, s.Outline = head+" -> "+action+"\n"+s.Artifact, true
		out = append(out, s)
	}
	for _, m := range f.Migrations {
		if !within(m.Span, seg) {
			continue
		}
		var cols, fks []string
		for _, c := range m.Columns {
			col := c.Name + " " + c.Type
			if len(c.Modifiers) > 0 {
				col += " (" + strings.Join(c.Modifiers, ", ") + ")"
			}
			cols = append(cols, col)
		}
		for _, fk := range m.Foreign {
			fks = append(fks, fk.Column+" -> "+fk.RefTable+"."+fk.RefColumn)
		}
		op := m.Call
		if m.To != "" {
			op += " to " + m.To
		}
		fnd := finder("path", fc.Path, "framework", "django", "migration", op, "table", m.Table, "model", m.Model,
			"columns", strings.Join(cols, "; "), "indexes", strings.Join(m.Indexes, ", "),
			"foreign keys", strings.Join(fks, ", "), "dropped columns", strings.Join(m.Dropped, ", "))
		out = append(out, unitSection("django", fc, seg, KindMigration, lang.SrcMigration, m.Table, m.Call, m.Span, fnd))
	}
	return out
}

// gaps is the code of seg between its units (a migration's header and
// dependencies), as plain code sections: nothing unrecognised leaves the
// index.
func gaps(fc *FileContext, seg segment.Segment, units []Section) []Section {
	sort.SliceStable(units, func(i, j int) bool { return units[i].StartByte < units[j].StartByte })
	var out []Section
	at, line := seg.StartByte, seg.StartLine
	emit := func(end int) {
		end = min(end, len(fc.Contents))
		if at >= end || strings.TrimSpace(strings.Trim(string(fc.Contents[at:end]), "[](),")) == "" {
			return
		}
		text := string(fc.Contents[at:end])
		s := base("code", fc, seg, "top", finder("path", fc.Path, "language", fc.Language, "kind", string(seg.Kind)))
		s.Artifact, s.Outline = text, false
		s.StartByte, s.EndByte, s.StartLine, s.Part, s.Parts = at, end, line, 1, 1
		s.EndLine = line + strings.Count(strings.TrimRight(text, "\n"), "\n")
		out = append(out, s)
	}
	for _, u := range units {
		if u.StartByte > at {
			emit(u.StartByte)
		}
		if u.EndByte > at {
			at, line = u.EndByte, u.EndLine
		}
	}
	emit(seg.EndByte)
	return out
}

// class describes a class that has a Django role.
func (d djangoDescriber) class(fc *FileContext, seg segment.Segment, c *appgraph.Class) Section {
	var rels, fields []string
	for _, r := range c.Relations {
		rels = append(rels, r.Method+": "+r.Type+" "+r.Target)
	}
	for _, f := range c.Fields {
		fields = append(fields, f.Name+" "+f.Type)
	}
	fnd := finder("path", fc.Path, "framework", "django", "type", c.Role, "class", c.FQN, "extends", c.Base,
		"signature", seg.Signature, "doc", seg.Doc, "table", c.Table, "fields", strings.Join(fields, ", "),
		"relations", strings.Join(rels, "; "), "uses", strings.Join(c.Uses, ", "))
	s := base("django", fc, seg, codeKey(seg), fnd)
	s.SourceType, s.Flavor = c.Role, "django"
	if seg.Outline {
		s.Flavor = "outline"
	}
	return s
}

// method describes a view's method or a function view.
func (d djangoDescriber) method(fc *FileContext, seg segment.Segment, c *appgraph.Class) Section {
	var uses string
	for _, m := range c.Methods {
		if m.Name == seg.Name {
			uses = strings.Join(m.Uses, ", ")
		}
	}
	fnd := finder("path", fc.Path, "framework", "django", "type", lang.SrcControllerMethod, "action", c.FQN+"@"+seg.Name,
		"signature", seg.Signature, "doc", seg.Doc, "uses", uses)
	s := base("django", fc, seg, "body", fnd)
	s.SourceType, s.Flavor = lang.SrcControllerMethod, "django"
	return s
}
