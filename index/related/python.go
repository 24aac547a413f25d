package related

import (
	"path"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/xref"
)

func init() {
	withScoping(lang.Python, func(s *scoping) { s.names, s.submodule = pythonNameRules, pySubmodule })
}

// pythonNameRules resolves a Python name as written: the file's own
// top-level definitions, then the from-imports and wildcard imports that
// bind it, following a module's own imports when it re-exports a name
// (a package's __init__.py: `from .sessions import Session` makes
// requests.Session). A dotted qualifier is an import binding, or one
// followed by submodules of its package (`import pkg.sub` then
// pkg.sub.client.Client, `import pkg.sub as s` then s.client.Client); one
// that starts with no import binding is left to the generic path.
func pythonNameRules(r *resolver, p *parsed, written string, keep func(*xref.Def) bool) ([]hit, bool) {
	var hits []hit
	if strings.Contains(written, ".") {
		qual, name := splitQualifiedName(written, ".")
		mods, found := r.pyModules(p, qual)
		for _, q := range mods {
			hits = append(hits, r.pyExported(q, name, keep, 0)...)
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

// pyModules lists the module files a dotted name written in p reaches:
// those of the import bindings it starts with, then, part by part, the
// submodules of those packages (a package's submodule is an attribute of
// it once imported anywhere). bound reports whether the name starts with
// an import binding at all.
func (r *resolver) pyModules(p *parsed, qual string) (files []string, bound bool) {
	for i, imp := range p.defs().Imports {
		local, mods := imp.Local, []string(nil)
		if top, _, dotted := strings.Cut(imp.Local, "."); dotted && imp.Local == imp.Spec && qual != imp.Local && !strings.HasPrefix(qual, imp.Local+".") {
			// import a.b binds a as well.
			local, mods = top, r.w.resolvePython(p.path, top, nil)
		}
		rest, ok := strings.CutPrefix(qual, local)
		if local == "*" || local == "" || !ok || rest != "" && rest[0] != '.' {
			continue
		}
		bound = true
		if mods == nil {
			mods = r.importFiles(p, i)
		}
		if rest != "" && imp.Member != "" {
			// from a import b: b's own package, not a's.
			mods = slices.DeleteFunc(slices.Clone(mods), func(q string) bool { return pyModuleName(q) != imp.Member })
		}
		for _, part := range strings.Split(rest, ".")[1:] {
			mods = r.w.pySubmodules(mods, part)
		}
		files = append(files, mods...)
	}
	return files, bound
}

// pySubmodule reports whether the dotted name qual, written in p, names a
// module (scoping.submodule).
func pySubmodule(r *resolver, p *parsed, qual string) bool {
	mods, _ := r.pyModules(p, qual)
	return len(mods) > 0
}

// pySubmodules lists the submodules named part of the packages among
// mods (their __init__.py files).
func (w *workspace) pySubmodules(mods []string, part string) []string {
	var out []string
	for _, q := range mods {
		if path.Base(q) == "__init__.py" {
			sub := path.Join(path.Dir(q), part)
			out = appendNonEmpty(out, w.probe(sub+".py", sub+".pyi", path.Join(sub, "__init__.py")))
		}
	}
	return out
}

// pyModuleName is the last part of the module name of file q: its stem, or
// its package directory's name for an __init__.py.
func pyModuleName(q string) string {
	if base := path.Base(q); base != "__init__.py" {
		return strings.TrimSuffix(strings.TrimSuffix(base, ".py"), ".pyi")
	}
	return path.Base(path.Dir(q))
}
