package related

import (
	"strings"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/xref"
)

func init() { withScoping(lang.Python, func(s *scoping) { s.names = pythonNameRules }) }

// pythonNameRules resolves a Python name as written: the file's own
// top-level definitions, then the from-imports and wildcard imports that
// bind it, following a module's own imports when it re-exports a name
// (a package's __init__.py: `from .sessions import Session` makes
// requests.Session). A dotted name whose qualifier is no import binding
// is left to the generic path.
func pythonNameRules(r *resolver, p *parsed, written string, keep func(*xref.Def) bool) ([]hit, bool) {
	var hits []hit
	if strings.Contains(written, ".") {
		qual, name := splitQualifiedName(written, ".")
		found := false
		for i, imp := range p.defs().Imports {
			if imp.Local != qual {
				continue
			}
			found = true
			for _, q := range r.importFiles(p, i) {
				hits = append(hits, r.pyExported(q, name, keep, 0)...)
			}
		}
		return dedupHits(hits), found
	}
	if hits = r.topLevel(p.path, written, keep); len(hits) > 0 {
		return hits, true
	}
	for i, imp := range p.defs().Imports {
		if imp.Local == written && imp.Member != "" {
			for _, q := range r.importFiles(p, i) {
				hits = append(hits, r.pyExported(q, imp.Member, keep, 0)...)
			}
		}
	}
	if len(hits) > 0 {
		return dedupHits(hits), true
	}
	for i, imp := range p.defs().Imports {
		if imp.Local == "*" {
			for _, q := range r.importFiles(p, i) {
				hits = append(hits, r.pyExported(q, written, keep, 0)...)
			}
		}
	}
	return dedupHits(hits), true
}

// pyExported finds name in module file q: defined there, or imported
// into it by name or by a wildcard (a re-export), a few modules deep.
func (r *resolver) pyExported(q, name string, keep func(*xref.Def) bool, depth int) []hit {
	if hits := r.topLevel(q, name, keep); len(hits) > 0 || depth > 4 {
		return hits
	}
	f := r.file(q) // a wildcard re-export need not spell the name
	if f == nil || f.defs() == nil {
		return nil
	}
	var hits []hit
	for i, imp := range f.defs().Imports {
		if imp.Local == name && imp.Member != "" {
			for _, q2 := range r.importFiles(f, i) {
				hits = append(hits, r.pyExported(q2, imp.Member, keep, depth+1)...)
			}
		}
	}
	if len(hits) > 0 {
		return hits
	}
	for i, imp := range f.defs().Imports {
		if imp.Local == "*" {
			for _, q2 := range r.importFiles(f, i) {
				hits = append(hits, r.pyExported(q2, name, keep, depth+1)...)
			}
		}
	}
	return hits
}
