package related

import (
	"path"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/xref"
)

func init() { withScoping(lang.Java, func(s *scoping) { s.names = javaNames }) }

// javaNames resolves a fully qualified Java type (com.acme.util.Money, as
// a static import or the code writes it) to the class its package
// directory holds, and a simple name to a type nested in the file's
// classes (a member type is in scope in its outer class's body, before
// any import). A name whose first part is an import binding, or that no
// file holds, is left to the generic path (Outer.Inner).
func javaNames(r *resolver, p *parsed, written string, keep func(*xref.Def) bool) ([]hit, bool) {
	first, _, ok := strings.Cut(written, ".")
	if !ok {
		hits := nestedTypes(p, written, "", keep)
		for i, imp := range p.defs().Imports {
			if imp.Local != written || imp.Member != written || len(hits) > 0 {
				continue
			}
			// import a.b.Outer.Inner: the file is Outer's.
			outer := lastPart(strings.TrimSuffix(imp.Spec, "."+written), ".")
			for _, q := range r.importFiles(p, i) {
				if f := r.parsedHolding(q, written, false); f != nil && len(r.topLevel(q, written, keep)) == 0 {
					hits = append(hits, nestedTypes(f, written, outer, keep)...)
				}
			}
		}
		return hits, len(hits) > 0
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

// nestedTypes are the types named name nested in the classes of p (in
// outer alone, when given).
func nestedTypes(p *parsed, name, outer string, keep func(*xref.Def) bool) []hit {
	var hits []hit
	for i := range p.defs().Defs {
		d := &p.d.Defs[i]
		if d.Name == name && d.Container != "" && (outer == "" || d.Container == outer) && isType(d) && (keep == nil || keep(d)) {
			hits = append(hits, hit{p, i})
		}
	}
	return hits
}

func lastPart(s, sep string) string {
	_, last := splitQualifiedName(s, sep)
	return last
}

// javaPackage lists the other files of p's package: the files of each of
// its directories (javaPackageDirs) that declare the same package.
func javaPackage(r *resolver, p *parsed) []string {
	ext := path.Ext(p.path)
	var out []string
	for _, d := range r.w.javaPackageDirs(path.Dir(p.path), p.packageName()) {
		for _, q := range r.w.dirs[d] {
			if q == p.path || path.Ext(q) != ext {
				continue
			}
			if o := r.file(q); o != nil && o.packageName() == p.packageName() {
				out = append(out, q)
			}
		}
	}
	return out
}

// javaPackageDirs lists the directories holding package pkg as seen from
// dir, dir first: Maven and Gradle split a package between source roots
// (src/main/java/com/x and src/test/java/com/x), so every directory ending
// in the package's path under the same module (the part before the last
// src/) holds it. A file outside such a layout has its directory alone.
func (w *workspace) javaPackageDirs(dir, pkg string) []string {
	rel := strings.ReplaceAll(pkg, ".", "/")
	root, ok := strings.CutSuffix(dir, rel)
	if pkg == "" || !ok || root != "" && !strings.HasSuffix(root, "/") {
		return []string{dir}
	}
	key := dir + "\x00" + pkg
	if dirs, ok := w.javaDirs[key]; ok {
		return dirs
	}
	module := javaModule(root)
	dirs := []string{dir}
	for d := range w.dirs {
		if r, ok := strings.CutSuffix(d, rel); ok && d != dir && (r == "" || strings.HasSuffix(r, "/")) && javaModule(r) == module {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs[1:])
	if w.javaDirs == nil {
		w.javaDirs = map[string][]string{}
	}
	w.javaDirs[key] = dirs
	return dirs
}

// javaModule is the module directory of a source root: the part before
// its last "src/" (gson/ of gson/src/test/java/), else the root itself.
func javaModule(root string) string {
	if i := strings.LastIndex("/"+root, "/src/"); i >= 0 {
		return root[:i]
	}
	return root
}
