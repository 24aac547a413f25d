package describe

import (
	"sort"
	"strings"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/segment"
)

// Chunk kinds of framework units that are no code symbol.
const (
	KindRoute     segment.Kind = "route"
	KindMigration segment.Kind = "migration"
)

// replacing is a description that stands in for the plain code chunk of
// its segment (see Registry.Describe).
type replacing []Section

func (r replacing) Sections() []Section { return r }

// laravelDescriber describes the units of a Laravel application that
// index/laravel recognised in a file (FileContext.App): one chunk per
// route, per Schema:: operation and per config key, and models,
// controllers and their methods, jobs, events, listeners, policies,
// middleware, form requests and API resources under their source types.
// What it does not recognise stays with the code describer.
type laravelDescriber struct{}

func (laravelDescriber) Name() string { return "laravel" }
func (laravelDescriber) Description() string {
	return "Laravel: routes (one per route, group prefixes applied, resources expanded), models with table and relations, " +
		"migrations per Schema:: operation, controllers and their methods, jobs, events, listeners, policies, middleware, " +
		"form requests, API resources, config/*.php by top-level key"
}

func (d laravelDescriber) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	f := fc.App
	if f.Empty() || f.Framework != "laravel" {
		return nil, false
	}
	var out []Section
	units := !(seg.Kind == segment.Class && seg.Outline)
	if units {
		out = append(out, d.units(fc, seg)...)
	}
	switch seg.Kind {
	case segment.Class:
		if c := classAt(f, seg.Name, seg.StartByte, seg.EndByte); c != nil && c.Role != "" && len(out) == 0 {
			return replacing{d.class(fc, seg, c)}, true
		}
	case segment.Method:
		if len(out) > 0 || len(seg.Parents) == 0 {
			break
		}
		if c := classAt(f, seg.Parents[len(seg.Parents)-1], seg.StartByte, seg.EndByte); c != nil {
			if s, ok := d.method(fc, seg, c); ok {
				return replacing{s}, true
			}
		}
	}
	if len(out) == 0 {
		return nil, false
	}
	if seg.Kind == segment.TopLevel {
		out = append(out, residue(fc, seg, out)...)
		sort.SliceStable(out, func(i, j int) bool { return out[i].StartByte < out[j].StartByte })
	}
	return replacing(out), true
}

// classAt is the class named name that overlaps [start, end).
func classAt(f *appgraph.Facts, name string, start, end int) *appgraph.Class {
	for i := range f.Classes {
		c := &f.Classes[i]
		if c.StartByte < end && c.EndByte > start && (c.Name == name || c.Name == "") {
			return c
		}
	}
	return nil
}

func within(s appgraph.Span, seg segment.Segment) bool {
	return s.StartByte >= seg.StartByte && s.EndByte <= seg.EndByte+1 && s.StartByte < seg.EndByte
}

// unitSection is the section of one framework unit (a route, a migration
// operation, a model, a handler) of the framework flavor: the bytes of sp
// alone, outside the segment's structure (no parents, no signature).
func unitSection(flavor string, fc *FileContext, seg segment.Segment, kind segment.Kind, src, symbol, key string, sp appgraph.Span, fnd string) Section {
	s := base(flavor, fc, seg, key, fnd)
	s.Kind, s.SourceType, s.Flavor, s.Symbol, s.Parents, s.Signature = string(kind), src, flavor, symbol, nil, ""
	atSpan(&s, fc, sp)
	return s
}

// codeRun is the plain code of a run of top-level statements no unit
// stands for.
func codeRun(fc *FileContext, seg segment.Segment, sp appgraph.Span) Section {
	s := base("code", fc, seg, "top", finder("path", fc.Path, "language", fc.Language, "kind", string(segment.TopLevel)))
	atSpan(&s, fc, sp)
	s.Symbol = ""
	return s
}

// atSpan makes s stand for the bytes of sp, as one part.
func atSpan(s *Section, fc *FileContext, sp appgraph.Span) {
	end := min(sp.EndByte, len(fc.Contents))
	s.Artifact, s.Outline = string(fc.Contents[sp.StartByte:end]), false
	s.StartByte, s.EndByte, s.StartLine, s.EndLine, s.Part, s.Parts = sp.StartByte, end, sp.StartLine, sp.EndLine, 1, 1
}

// units are the routes, Schema:: operations and config keys inside seg.
func (d laravelDescriber) units(fc *FileContext, seg segment.Segment) []Section {
	f := fc.App
	var out []Section
	for _, r := range f.Routes {
		if !within(r.Span, seg) {
			continue
		}
		sym := r.Name
		if sym == "" {
			sym = strings.Join(r.Methods, "|") + " " + r.URI
		}
		action := r.Action
		if r.Controller != "" {
			action = r.Controller + "@" + r.Action
		}
		fnd := finder("path", fc.Path, "framework", "laravel", "route", strings.Join(r.Methods, "|")+" "+r.URI,
			"name", r.Name, "action", action, "middleware", strings.Join(r.Middleware, ", "))
		s := unitSection("laravel", fc, seg, KindRoute, lang.SrcRoute, sym, "route", r.Span, fnd)
		// The statement alone hides the group's prefix, name and
		// middleware, and a resource's seven routes share it (identical
		// text would fold them into one result): the chunk's text starts
		// with the route as registered.
		head := "// " + strings.Join(r.Methods, "|") + " " + r.URI
		if r.Name != "" {
			head += " (" + r.Name + ")"
		}
		if action != "" {
			head += " -> " + action
		}
		if len(r.Middleware) > 0 {
			head += " [" + strings.Join(r.Middleware, ", ") + "]"
		}
		s.Artifact, s.Outline = head+"\n"+s.Artifact, true
		out = append(out, s)
	}
	for _, m := range f.Migrations {
		if !within(m.Span, seg) {
			continue
		}
		out = append(out, unitSection("laravel", fc, seg, KindMigration, lang.SrcMigration, m.Table, m.Op, m.Span, migrationFinder(fc.Path, m)))
	}
	for _, k := range f.Config {
		if !within(k.Span, seg) {
			continue
		}
		fnd := finder("path", fc.Path, "framework", "laravel", "type", "config", "key", k.File+"."+k.Key)
		s := unitSection("laravel", fc, seg, segment.ConfigKey, "config", k.Key, k.Key, k.Span, fnd)
		s.Parents = []string{k.File}
		out = append(out, s)
	}
	return out
}

func migrationFinder(path string, m appgraph.Migration) string {
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
	op := "Schema::" + m.Op
	if m.To != "" {
		op += " to " + m.To
	}
	return finder("path", path, "framework", "laravel", "migration", op, "table", m.Table,
		"columns", strings.Join(cols, "; "), "indexes", strings.Join(m.Indexes, ", "),
		"foreign keys", strings.Join(fks, ", "), "dropped columns", strings.Join(m.Dropped, ", "))
}

// residue is the code of seg's top-level statements that no unit covers,
// as plain code sections: nothing unrecognised leaves the index.
func residue(fc *FileContext, seg segment.Segment, units []Section) []Section {
	var out []Section
	covered := func(sp appgraph.Span) bool {
		for _, u := range units {
			if u.StartByte < sp.EndByte && u.EndByte > sp.StartByte {
				return true
			}
		}
		return false
	}
	var run *appgraph.Span
	flush := func() {
		if run == nil {
			return
		}
		out = append(out, codeRun(fc, seg, *run))
		run = nil
	}
	for _, st := range fc.App.Stmts {
		if !within(st, seg) {
			continue
		}
		if covered(st) {
			flush()
			continue
		}
		if run == nil {
			r := st
			run = &r
		} else {
			run.EndByte, run.EndLine = st.EndByte, st.EndLine
		}
	}
	flush()
	return out
}

// class describes a class that has a Laravel role.
func (d laravelDescriber) class(fc *FileContext, seg segment.Segment, c *appgraph.Class) Section {
	var rels []string
	for _, r := range c.Relations {
		if r.Type != "" { // one that narrows a relation of a base or trait: the graph knows it
			rels = append(rels, r.Method+": "+r.Type+" "+r.Target)
		}
	}
	fnd := finder("path", fc.Path, "framework", "laravel", "type", c.Role, "class", c.FQN, "extends", c.Base,
		"signature", seg.Signature, "doc", seg.Doc, "table", c.Table, "relations", strings.Join(rels, "; "),
		"fillable", strings.Join(c.Fillable, ", "), "casts", strings.Join(c.Casts, ", "))
	s := base("laravel", fc, seg, codeKey(seg), fnd)
	s.SourceType, s.Flavor = c.Role, "laravel"
	if seg.Outline {
		s.Flavor = "outline"
	}
	return s
}

// method describes a controller's method or a model's relation.
func (d laravelDescriber) method(fc *FileContext, seg segment.Segment, c *appgraph.Class) (Section, bool) {
	var src, extra string
	switch c.Role {
	case appgraph.RoleController:
		src = lang.SrcControllerMethod
		var m *appgraph.Method
		for i := range c.Methods {
			if c.Methods[i].Name == seg.Name {
				m = &c.Methods[i]
			}
		}
		if m != nil {
			extra = strings.Join(m.Uses, ", ")
		}
		fnd := finder("path", fc.Path, "framework", "laravel", "type", src, "action", c.FQN+"@"+seg.Name,
			"signature", seg.Signature, "doc", seg.Doc, "uses", extra)
		s := base("laravel", fc, seg, "body", fnd)
		s.SourceType, s.Flavor = src, "laravel"
		return s, true
	case appgraph.RoleModel:
		for _, r := range c.Relations {
			if r.Method != seg.Name || r.Type == "" {
				continue
			}
			fnd := finder("path", fc.Path, "framework", "laravel", "type", lang.SrcModelRelation, "model", c.FQN,
				"relation", r.Type+" "+r.Target, "signature", seg.Signature, "doc", seg.Doc)
			s := base("laravel", fc, seg, "body", fnd)
			s.SourceType, s.Flavor = lang.SrcModelRelation, "laravel"
			return s, true
		}
	}
	return Section{}, false
}
