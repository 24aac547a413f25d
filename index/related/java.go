package related

import (
	"strings"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/xref"
)

func init() { withScoping(lang.Java, func(s *scoping) { s.names = javaNames }) }

// javaNames resolves a fully qualified Java type (com.acme.util.Money, as
// a static import or the code writes it) to the class its package
// directory holds. A name whose first part is an import binding, or that
// no file holds, is left to the generic path (Outer.Inner).
func javaNames(r *resolver, p *parsed, written string, keep func(*xref.Def) bool) ([]hit, bool) {
	first, _, ok := strings.Cut(written, ".")
	if !ok {
		return nil, false
	}
	for _, imp := range p.defs().Imports {
		if imp.Local == first {
			return nil, false
		}
	}
	_, name := splitQualifiedName(written, ".")
	var hits []hit
	for _, q := range r.w.resolveJava(p.path, written) {
		hits = append(hits, r.topLevel(q, name, keep)...)
	}
	return hits, len(hits) > 0
}

// splitQualifiedName splits a qualified name at its last sep.
func splitQualifiedName(s, sep string) (qual, name string) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):]
	}
	return "", s
}
