package related

import (
	"bytes"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/xref"
)

// imports resolves the target file's imports, as the index stores them.
// It also records what they resolve to, for ranking callees, and for Go
// the package names (or aliases) that qualify calls into them.
func (e *expander) imports() ([]Import, error) {
	specs, err := e.tx.Imports(e.path)
	if err != nil {
		return nil, err
	}
	var names map[string][]string
	if e.fam == "python" {
		names = pythonNames(e.text)
	}
	out := []Import{}
	seen := map[string]bool{}
	var aliases map[string]string
	if e.fam == "go" {
		aliases = goAliases(e.text)
	}
	for _, spec := range specs {
		if seen[spec] {
			continue
		}
		seen[spec] = true
		files, dir := e.w.resolve(e.path, e.fam, spec, names[spec])
		files = slices.DeleteFunc(files, func(p string) bool { return p == e.path })
		imp := Import{Spec: spec, Line: importLine(e.text, spec), Dir: dir, Paths: files, External: dir == "" && len(files) == 0}
		for _, p := range files {
			e.imported[p] = true
		}
		if dir != "" {
			e.imported[dir+"/"] = true
			e.goQuals[xref.GoImportName(spec)] = dir
			if alias := aliases[spec]; alias != "" {
				e.goQuals[alias] = dir
			}
		}
		out = append(out, imp)
	}
	return out, nil
}

// importer is a file that imports the target, with the spec that does.
type importer struct{ path, spec string }

// importers scans every import of the target's language family and keeps
// the files whose imports resolve to the target (for Go, to its package).
// Specs that cannot name the target are skipped before resolution.
func (e *expander) importers() ([]importer, error) {
	if e.fam == "go" && strings.HasSuffix(e.path, "_test.go") {
		return nil, nil // nothing imports a test file
	}
	stem := strings.TrimSuffix(path.Base(e.path), path.Ext(e.path))
	dirBase := path.Base(e.dir())
	isModuleDir := false
	for _, m := range e.w.goMods {
		isModuleDir = isModuleDir || m.dir == e.dir()
	}
	var out []importer
	pyNames := map[string]map[string][]string{}
	keep := func(p string) bool { return p != e.path && familyOf(p) == e.fam }
	err := e.tx.EachImports(keep, func(p string, specs []string) error {
		for _, spec := range specs {
			var hit bool
			switch e.fam {
			case "go":
				hit = (isModuleDir || strings.HasSuffix(spec, dirBase)) && e.w.resolveGo(p, spec) == e.dir()
			case "python":
				hit = e.pythonImports(p, spec, pyNames)
			default:
				if strings.Contains(spec, stem) || strings.Contains(spec, dirBase) {
					files, _ := e.w.resolve(p, e.fam, spec, nil)
					hit = slices.Contains(files, e.path)
				}
			}
			if hit {
				out = append(out, importer{p, spec})
				break
			}
		}
		return nil
	})
	return out, err
}

// pythonImports reports whether spec of file p imports the target module,
// directly, as a name of its package ("from . import target"), or through
// a package that re-exports the target's names (`import pkg` then
// pkg.Client(), with pkg/__init__.py importing them).
func (e *expander) pythonImports(p, spec string, cache map[string]map[string][]string) bool {
	if top, rest, dotted := strings.Cut(spec, "."); dotted && top != "" && e.pyUsesTop(p, top, rest) && e.pythonImports(p, top, cache) {
		return true // import a.b binds a as well, which p uses
	}
	files := e.w.resolvePython(p, spec, nil)
	if slices.Contains(files, e.path) {
		return true
	}
	pkgInit := path.Join(e.dir(), "__init__.py")
	last := spec[strings.LastIndexByte(spec, '.')+1:]
	if slices.Contains(files, pkgInit) || strings.Trim(spec, ".") == "" || last == path.Base(e.dir()) {
		names, ok := cache[p]
		if !ok {
			text, _ := e.tx.Blob(p)
			names = pythonNames(text)
			cache[p] = names
		}
		if slices.Contains(e.w.resolvePython(p, spec, names[spec]), e.path) {
			return true
		}
	}
	for _, f := range files {
		if f != p && path.Base(f) == "__init__.py" && e.inPyPackage(f) && e.pyReexports(f, 0) {
			return true
		}
		if e.pySpellsSubmodule(p, f, cache) {
			return true
		}
	}
	return false
}

// pyUsesTop reports whether file p, importing top.rest, uses top for
// another of its names (top.Client, not top.rest.x).
func (e *expander) pyUsesTop(p, top, rest string) bool {
	next, _, _ := strings.Cut(rest, ".")
	text, _ := e.tx.Blob(p)
	prefix := []byte(top + ".")
	for off := 0; ; {
		i := bytes.Index(text[off:], prefix)
		if i < 0 {
			return false
		}
		i += off
		off = i + len(prefix)
		if i > 0 && (isIdent(text[i-1]) || text[i-1] == '.') {
			continue
		}
		end := off
		for end < len(text) && isIdent(text[end]) {
			end++
		}
		if name := string(text[off:end]); name != "" && name != next {
			return true
		}
	}
}

// pySpellsSubmodule reports whether file p, importing the package whose
// __init__.py is pkgInit, reaches the target module as a submodule of it
// (`import pkg.sub` then pkg.sub.client.Client() for pkg/sub/client.py):
// pkgInit's directory holds the target and p's text spells the dotted
// path from there, as an attribute (".client.").
func (e *expander) pySpellsSubmodule(p, pkgInit string, cache map[string]map[string][]string) bool {
	dir := path.Dir(pkgInit)
	if path.Base(pkgInit) != "__init__.py" || !strings.HasPrefix(e.path, dir+"/") {
		return false
	}
	rel := strings.TrimSuffix(strings.TrimSuffix(e.path[len(dir)+1:], ".py"), ".pyi")
	rel = strings.TrimSuffix(rel, "/__init__")
	if rel == "__init__" {
		return false // the package itself
	}
	text, _ := e.tx.Blob(p)
	return bytes.Contains(text, []byte("."+strings.ReplaceAll(rel, "/", ".")+"."))
}

// inPyPackage reports whether module file q lies in the package tree
// holding the target (under its top package, the highest directory of
// __init__.py files above it): where a package re-exports the target's
// names from, which bounds the modules followed.
func (e *expander) inPyPackage(q string) bool {
	if e.pyTop == "" {
		top := e.dir()
		for top != "." && e.w.files[path.Join(path.Dir(top), "__init__.py")] {
			top = path.Dir(top)
		}
		e.pyTop = top
	}
	return e.pyTop == "." || strings.HasPrefix(q, e.pyTop+"/")
}

// pyReexports reports whether module file q imports names from the target
// module, itself or through the modules it imports from, a few deep
// (`from ._client import *`, `from pkg._api import *` whose _api does
// `from pkg._client import Client`): q's own names then include the
// target's. The answer is kept for the expansion.
func (e *expander) pyReexports(q string, depth int) bool {
	if v, ok := e.pyInit[q]; ok {
		return v
	}
	if e.pyInit == nil {
		e.pyInit = map[string]bool{}
	}
	e.pyInit[q] = false // a cycle of imports adds nothing
	f := e.r.file(q)
	if f == nil || f.defs() == nil || depth > 4 {
		return false
	}
	v := false
	for _, imp := range f.d.Imports {
		if imp.Member == "" && imp.Local != "*" {
			continue // import m binds m, not m's names
		}
		// The module itself, not a submodule the name may be.
		for _, m := range e.w.resolvePython(q, imp.Spec, nil) {
			if m == e.path || m != q && e.inPyPackage(m) && e.pyReexports(m, depth+1) {
				v = true
			}
		}
	}
	e.pyInit[q] = v
	return v
}

// importerRefs turns the first importers (in path order) into refs with
// the line of the import and the chunk holding it.
func (e *expander) importerRefs(imps []importer) ([]Ref, error) {
	slices.SortFunc(imps, func(a, b importer) int { return strings.Compare(a.path, b.path) })
	if len(imps) > e.limit {
		e.omitted["importers"] = len(imps) - e.limit
		imps = imps[:e.limit]
	}
	out := []Ref{}
	for _, imp := range imps {
		r := Ref{Path: imp.path, Line: 1, Name: imp.spec}
		if text, ok := e.tx.Blob(imp.path); ok {
			if line := importLine(text, imp.spec); line > 0 {
				r.Line = line
			}
		}
		chunks, err := e.tx.FileChunks(imp.path)
		if err != nil {
			return nil, err
		}
		for _, c := range chunks {
			if c.StartLine <= r.Line && r.Line <= c.EndLine && c.Outline == "" {
				r.ChunkID, r.Kind, r.Symbol, r.StartLine, r.EndLine = c.ID, c.Kind, qualifiedName(c), c.StartLine, c.EndLine
				break
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// importLine finds the line of the first occurrence of spec standing
// alone (not inside a longer name or path), or 0.
func importLine(text []byte, spec string) int {
	if spec == "" {
		return 0
	}
	for off := 0; ; {
		i := bytes.Index(text[off:], []byte(spec))
		if i < 0 {
			return 0
		}
		i += off
		end := i + len(spec)
		before, after := byte(' '), byte(' ')
		if i > 0 {
			before = text[i-1]
		}
		if end < len(text) {
			after = text[end]
		}
		if !isPathByte(before) && !isPathByte(after) {
			return bytes.Count(text[:i], []byte("\n")) + 1
		}
		off = i + 1
	}
}

func isPathByte(c byte) bool { return isIdent(c) || c == '.' || c == '/' || c == '-' }

var goImportAlias = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*(?:import[ \t]+)?([\p{L}_][\p{L}\p{N}_]*|\.)[ \t]+"([^"]+)"`)
})

// goAliases maps import paths to the names a Go file gives them ("." for
// a dot import). Imports precede declarations, so the search stops at the
// first function.
func goAliases(text []byte) map[string]string {
	if i := bytes.Index(text, []byte("\nfunc ")); i >= 0 {
		text = text[:i]
	}
	out := map[string]string{}
	for _, m := range goImportAlias().FindAllSubmatch(text, -1) {
		// "import "x"" matches with import as the name: not an alias.
		if name := string(m[1]); name != "_" && name != "import" {
			out[string(m[2])] = string(m[1])
		}
	}
	return out
}
