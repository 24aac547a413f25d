package describe

import (
	"sort"
	"strings"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/segment"
)

// adding is a description that goes beside the segment's code chunk.
type adding []Section

func (a adding) Sections() []Section { return a }

// jsAppDescriber describes the units index/jsapp recognised in a file of
// an Express or Next.js application (FileContext.App, Framework fw): one
// chunk per route, and the functions of a controller module (a module
// that holds route handlers) as controller methods. Routes registered by
// top-level statements replace those statements' code chunk (the rest of
// the statements stay plain code); a route that is a function (a Next.js
// page or route handler, an Express route inside a setup function) is a
// chunk beside the function's code.
type jsAppDescriber struct{ fw, desc string }

func (d jsAppDescriber) Name() string        { return d.fw }
func (d jsAppDescriber) Description() string { return d.desc }

func (d jsAppDescriber) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	f := fc.App
	if f.Empty() || f.Framework != d.fw {
		return nil, false
	}
	var routes []Section
	if seg.Kind == segment.TopLevel || seg.Part <= 1 { // a split function's route goes with its first part
		routes = d.routes(fc, seg)
	}
	if seg.Kind == segment.TopLevel {
		routes = append(routes, d.topMethods(fc, seg, routes)...)
	}
	if seg.Kind == segment.TopLevel && len(routes) > 0 {
		out := append(routes, jsResidue(fc, seg, routes)...)
		sort.SliceStable(out, func(i, j int) bool { return out[i].StartByte < out[j].StartByte })
		return replacing(out), true
	}
	if (seg.Kind == segment.Function || seg.Kind == segment.Method) && len(routes) == 0 {
		if s, ok := d.method(fc, seg); ok {
			return replacing{s}, true
		}
	}
	if len(routes) == 0 {
		return nil, false
	}
	return adding(routes), true
}

// routeLines is how much of a route's code its chunk repeats: a page or
// handler's whole body is the function's own chunk.
const routeLines = 30

// routes are the route chunks of the routes inside seg.
func (d jsAppDescriber) routes(fc *FileContext, seg segment.Segment) []Section {
	var out []Section
	for _, r := range fc.App.Routes {
		if !within(r.Span, seg) && (seg.Kind == segment.TopLevel || !overlaps(r.Span, seg)) {
			continue
		}
		action := r.Action
		if r.Controller != "" {
			action = r.Controller + "@" + r.Action
		}
		route := strings.Join(r.Methods, "|") + " " + r.URI
		fnd := finder("path", fc.Path, "framework", d.fw, "route", route, "action", action,
			"middleware", strings.Join(r.Middleware, ", "))
		s := base(d.fw, fc, seg, "route", fnd)
		s.Kind, s.SourceType, s.Flavor, s.Symbol, s.Parents, s.Signature = string(KindRoute), lang.SrcRoute, d.fw, route, nil, ""
		end := min(r.EndByte, len(fc.Contents))
		code := string(fc.Contents[r.StartByte:end])
		if lines := strings.SplitAfter(code, "\n"); len(lines) > routeLines {
			code = strings.Join(lines[:routeLines], "") + "// ...\n"
		}
		head := "// " + route
		if action != "" {
			head += " -> " + action
		}
		if len(r.Middleware) > 0 {
			head += " [" + strings.Join(r.Middleware, ", ") + "]"
		}
		s.Artifact, s.Outline = head+"\n"+code, true
		s.StartByte, s.EndByte, s.StartLine, s.EndLine, s.Part, s.Parts = r.StartByte, end, r.StartLine, r.EndLine, 1, 1
		out = append(out, s)
	}
	return out
}

func overlaps(s appgraph.Span, seg segment.Segment) bool {
	return s.StartByte < seg.EndByte && s.EndByte > seg.StartByte && seg.Kind != segment.TopLevel
}

// method describes a function of a controller module.
func (d jsAppDescriber) method(fc *FileContext, seg segment.Segment) (Section, bool) {
	for _, c := range fc.App.Classes {
		if c.Role != appgraph.RoleController {
			continue
		}
		for _, m := range c.Methods {
			if m.Name != seg.Name || m.StartByte >= seg.EndByte || m.EndByte <= seg.StartByte {
				continue
			}
			fnd := finder("path", fc.Path, "framework", d.fw, "type", lang.SrcControllerMethod, "action", c.FQN+"@"+m.Name,
				"signature", seg.Signature, "doc", seg.Doc, "uses", strings.Join(m.Uses, ", "))
			s := base(d.fw, fc, seg, "body", fnd)
			s.SourceType, s.Flavor = lang.SrcControllerMethod, d.fw
			return s, true
		}
	}
	return Section{}, false
}

// topMethods are the controller methods that top-level statements inside
// seg declare and the segmenter left as top-level code (const list =
// catchAsync(async (req, res) => ...), exports.list = ...), and the
// statements that register models (mongoose.model('Product', schema)).
func (d jsAppDescriber) topMethods(fc *FileContext, seg segment.Segment, routes []Section) []Section {
	var out []Section
	for _, c := range fc.App.Classes {
		if c.Role == appgraph.RoleModel && within(c.Span, seg) {
			var rels []string
			for _, r := range c.Relations {
				rels = append(rels, r.Method+": "+r.Type+" "+r.Target)
			}
			fnd := finder("path", fc.Path, "framework", d.fw, "type", lang.SrcModel, "model", c.FQN, "table", c.Table,
				"relations", strings.Join(rels, "; "))
			out = append(out, unitSection(d.fw, fc, seg, segment.Class, lang.SrcModel, c.Name, "decl", c.Span, fnd))
		}
		if c.Role != appgraph.RoleController {
			continue
		}
	methods:
		for _, m := range c.Methods {
			if !within(m.Span, seg) {
				continue
			}
			for _, r := range routes {
				if r.StartByte < m.EndByte && r.EndByte > m.StartByte {
					continue methods // an inline handler: its route's chunk holds it
				}
			}
			fnd := finder("path", fc.Path, "framework", d.fw, "type", lang.SrcControllerMethod, "action", c.FQN+"@"+m.Name,
				"uses", strings.Join(m.Uses, ", "))
			out = append(out, unitSection(d.fw, fc, seg, segment.Function, lang.SrcControllerMethod, m.Name, "body", m.Span, fnd))
		}
	}
	return out
}

// jsResidue is the code of seg's top-level statements that the units do
// not stand for, as plain code sections. A statement stands for its units
// when what is left of it around them is no code of its own (router,
// .route('/'), a semicolon); a function that registers routes inside
// (module.exports = (app) => { ... app.get(...) }) stays whole.
func jsResidue(fc *FileContext, seg segment.Segment, units []Section) []Section {
	var out []Section
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
		if standsFor(fc.Contents, st, units) {
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

// standsFor reports whether units cover st but for code of no substance.
func standsFor(src []byte, st appgraph.Span, units []Section) bool {
	end := min(st.EndByte, len(src))
	if st.StartByte >= end {
		return false
	}
	left := make([]byte, 0, end-st.StartByte)
	touched := false
	for i := st.StartByte; i < end; i++ {
		in := false
		for _, u := range units {
			if i >= u.StartByte && i < u.EndByte {
				in = true
				break
			}
		}
		touched = touched || in
		if !in {
			left = append(left, src[i])
		}
	}
	rest := string(left)
	return touched && !strings.ContainsAny(rest, "{}") && !strings.Contains(rest, "=>") && !strings.Contains(rest, "function")
}
