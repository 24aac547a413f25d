package related

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/xref"
	"github.com/dossierhq/dossier/store"
)

// parsed is one workspace file as the resolver knows it: its text and,
// once asked for, what xref reads in it (x stays nil when its language has
// no extractor or it does not parse).
type parsed struct {
	path string
	lang string
	text []byte
	// x is the whole file, references included; d its definitions and
	// imports, read alone (cheaper) when only they are needed. Once x is
	// read, d is x.
	x         *xref.File
	tried     bool
	d         *xref.File
	triedDefs bool
	pkg       string // package clause (Go, Java) or namespace, read lazily
	hasPkg    bool
	lines     []int
	// imports are the files each import binding reaches, resolved once.
	imports map[int][]string
	// build is a Go file's build constraint, read once (gobuild.go).
	build    *goBuild
	hasBuild bool
}

// hit is one definition a reference resolves to.
type hit struct {
	p *parsed
	i int // index in p.d.Defs
}

func (h hit) def() *xref.Def { return &h.p.d.Defs[h.i] }

// resolver resolves xref references to workspace definitions with the
// scoping table, reading and parsing files as it needs them (once per
// expansion, and only files that hold the name sought).
type resolver struct {
	tx    *store.Tx
	w     *workspace
	files map[string]*parsed
	// globals caches, per name, the files defining it (global fallback).
	globals map[string][]string
	// together caches whether two Go build constraints, by their labels,
	// hold on one platform.
	together map[[2]string]bool
}

func newResolver(tx *store.Tx, w *workspace) *resolver {
	return &resolver{tx: tx, w: w, files: map[string]*parsed{}, globals: map[string][]string{},
		together: map[[2]string]bool{}}
}

// file reads p (nil when it is not in the index); it is parsed on demand.
func (r *resolver) file(p string) *parsed {
	if f, ok := r.files[p]; ok {
		return f
	}
	text, ok := r.tx.Blob(p)
	if !ok {
		r.files[p] = nil
		return nil
	}
	f := &parsed{path: p, lang: lang.Detect(p, text), text: text}
	r.files[p] = f
	return f
}

// parse makes f's xref facts (nil when it has none). Safe to run in
// parallel on distinct files.
func (f *parsed) parse() *xref.File {
	if !f.tried {
		f.tried = true
		if xref.Supported(f.lang) {
			f.x = cachedParse(f.path, f.lang, f.text, false)
		}
		if f.d == nil {
			f.d, f.triedDefs = f.x, true
		}
	}
	return f.x
}

// defs makes f's definitions and imports (nil when it has none), without
// the references unless they are read already.
func (f *parsed) defs() *xref.File {
	if !f.triedDefs {
		f.triedDefs = true
		switch {
		case f.x != nil:
			f.d = f.x
		case xref.Supported(f.lang):
			f.d = cachedParse(f.path, f.lang, f.text, true)
		}
	}
	return f.d
}

// parsedHolding is file q with its definitions read when its text may
// define name, else nil: a file that never spells a name cannot define
// it, and where the language tells declarations by their text
// (scoping.declares) one that does not declare it is not parsed either.
// method asks for a method outside its type's body.
func (r *resolver) parsedHolding(q, name string, method bool) *parsed {
	f := r.file(q)
	if f == nil {
		return nil
	}
	if f.d == nil {
		if decl := scopings[f.lang].declares; decl != nil && !decl(f.text, name, method) ||
			!bytes.Contains(f.text, []byte(name)) {
			return nil
		}
	}
	if f.defs() == nil {
		return nil
	}
	return f
}

// packageName is the package or namespace f declares, read without a
// parse where the language allows.
func (f *parsed) packageName() string {
	if !f.hasPkg {
		f.hasPkg = true
		if f.lang == lang.Go {
			f.pkg = goPackageClause(f.text)
		} else if d := f.defs(); d != nil {
			f.pkg = d.Package
		}
	}
	return f.pkg
}

// importFiles lists the files import i of p reaches.
func (r *resolver) importFiles(p *parsed, i int) []string {
	if files, ok := p.imports[i]; ok {
		return files
	}
	if p.imports == nil {
		p.imports = map[int][]string{}
	}
	imp := p.defs().Imports[i]
	var names []string
	if imp.Member != "" {
		names = []string{imp.Member}
	}
	files, _ := r.w.resolve(p.path, family(p.lang), imp.Spec, names)
	files = slices.DeleteFunc(slices.Clone(files), func(q string) bool { return q == p.path })
	p.imports[i] = files
	return files
}

// topLevel finds the definitions of name at the top level of file q
// (Container ""), keeping those keep accepts.
func (r *resolver) topLevel(q, name string, keep func(*xref.Def) bool) []hit {
	if f := r.file(q); f != nil && family(f.lang) == "js" {
		return r.jsTopLevel(q, name, keep, 0) // re-exports too (js.go)
	}
	f := r.parsedHolding(q, name, false)
	if f == nil {
		return nil
	}
	var out []hit
	for i := range f.d.Defs {
		d := &f.d.Defs[i]
		if d.Name == name && d.Container == "" && (keep == nil || keep(d)) {
			out = append(out, hit{f, i})
		}
	}
	return out
}

// bare resolves an unqualified name used in p: the file's own top-level
// definitions, a named import binding it, the module's other files, the
// dot and wildcard imports; then, where the language allows, a global
// guess.
func (r *resolver) bare(p *parsed, name string, keep func(*xref.Def) bool) (hits []hit, guess bool) {
	sc := scopings[p.lang]
	if sc.names != nil {
		if hits, done := sc.names(r, p, name, keep); done {
			return hits, false
		}
	}
	if hits = r.topLevel(p.path, name, keep); len(hits) > 0 {
		return hits, false
	}
	for i, imp := range p.defs().Imports {
		if imp.Local != name || imp.Member == "" {
			continue
		}
		for _, q := range r.importFiles(p, i) {
			hits = append(hits, r.topLevel(q, imp.Member, keep)...)
		}
		if len(hits) > 0 {
			return hits, false
		}
	}
	if sc.module != nil {
		for _, q := range sc.module(r, p) {
			hits = append(hits, r.topLevel(q, name, keep)...)
		}
		if len(hits) > 0 {
			return hits, false
		}
	}
	for i, imp := range p.defs().Imports {
		if imp.Local != "." && imp.Local != "*" {
			continue
		}
		for _, q := range r.importFiles(p, i) {
			hits = append(hits, r.topLevel(q, name, exportedAnd(sc, keep))...)
		}
	}
	if len(hits) > 0 || !sc.global {
		return hits, false
	}
	return r.global(p, name, keep), true
}

// exportedAnd accepts the definitions keep accepts whose names the
// language exports.
func exportedAnd(sc scoping, keep func(*xref.Def) bool) func(*xref.Def) bool {
	return func(d *xref.Def) bool {
		return (sc.exported == nil || sc.exported(d.Name)) && (keep == nil || keep(d))
	}
}

// qualified resolves name through the import binding qual of p.
func (r *resolver) qualified(p *parsed, qual, name string, keep func(*xref.Def) bool) []hit {
	sc := scopings[p.lang]
	if sc.names != nil {
		if hits, done := sc.names(r, p, qual+sc.sep+name, keep); done {
			return hits
		}
	}
	var hits []hit
	for i, imp := range p.defs().Imports {
		if imp.Local != qual {
			continue
		}
		for _, q := range r.importFiles(p, i) {
			hits = append(hits, r.topLevel(q, name, exportedAnd(sc, keep))...)
		}
	}
	if len(hits) > 0 || p.lang != lang.Go {
		return hits
	}
	// An unaliased Go import binds its package clause, which the
	// extractor could only guess from the path.
	for i, imp := range p.defs().Imports {
		if imp.Local == "" || imp.Local == "." || imp.Local == qual {
			continue
		}
		files := r.importFiles(p, i)
		if len(files) == 0 || r.file(files[0]).packageName() != qual {
			continue
		}
		for _, q := range files {
			hits = append(hits, r.topLevel(q, name, exportedAnd(sc, keep))...)
		}
	}
	return hits
}

// global is the one top-level definition of name in p's language family,
// found through the symbol map; nil when there are none or several.
func (r *resolver) global(p *parsed, name string, keep func(*xref.Def) bool) []hit {
	files, ok := r.globals[name]
	if !ok {
		fam := family(p.lang)
		_ = r.tx.SymbolsWithPrefix(strings.ToLower(name)+"\x00", func(s store.Symbol) bool {
			if s.Name == name && familyOf(s.Path) == fam {
				files = appendNonEmpty(files, s.Path)
			}
			return true
		})
		r.globals[name] = files
	}
	var hits []hit
	for _, q := range files {
		hits = append(hits, r.topLevel(q, name, keep)...)
	}
	if len(hits) != 1 {
		return nil
	}
	return hits
}

func isType(d *xref.Def) bool { return typeKinds[d.Kind] }

// typeNamed resolves a type as written in file p ("T", "pkg.T",
// `App\Models\User`) to its definitions.
func (r *resolver) typeNamed(p *parsed, t string) (hits []hit, guess bool) {
	sc := scopings[p.lang]
	t = strings.TrimLeft(t, "*&")
	if sc.names != nil {
		if hits, done := sc.names(r, p, t, isType); done {
			return hits, false
		}
	}
	if i := strings.LastIndex(t, sc.sep); i > 0 {
		qual, name := t[:i], t[i+len(sc.sep):]
		if hits = r.qualified(p, qual, name, isType); len(hits) > 0 {
			return hits, false
		}
		// A qualifier that names a type: a type nested in it (Outer.Inner).
		outers, g := r.typeNamed(p, qual)
		for _, o := range outers {
			hits = append(hits, slices.DeleteFunc(r.members(o, name, 0), func(h hit) bool { return !isType(h.def()) })...)
		}
		if len(hits) > 0 {
			return dedupHits(hits), g
		}
		if slices.ContainsFunc(p.defs().Imports, func(imp xref.Import) bool { return imp.Local == qual }) {
			return nil, false
		}
		// Else a namespace written out: its last part names the type as a
		// bare name would.
		t = name
	}
	t = strings.TrimPrefix(t, sc.sep)
	return r.bare(p, t, isType)
}

// members finds name among the members of the type defined at h, then of
// its bases (embedded types, superclasses), depth first.
func (r *resolver) members(h hit, name string, depth int) []hit {
	if depth > 6 {
		return nil
	}
	sc := scopings[h.p.lang]
	t := h.def()
	files := []string{h.p.path}
	if sc.membersInModule && sc.module != nil {
		files = append(files, sc.module(r, h.p)...)
	}
	if sc.memberFiles != nil {
		files = append(files, sc.memberFiles(r, h.p)...)
	}
	var out []hit
	for k, q := range files {
		f := r.parsedHolding(q, name, k > 0)
		if f == nil {
			continue
		}
		for i := range f.d.Defs {
			if d := &f.d.Defs[i]; d.Name == name && d.Container == t.Name {
				out = append(out, hit{f, i})
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	if t.Kind == "type" && t.Type != "" && t.Type != t.Name {
		// A named collection indexed or ranged over: its element's.
		elems, _ := r.typeNamed(h.p, t.Type)
		for _, eh := range elems {
			out = append(out, r.members(eh, name, depth+1)...)
		}
		if len(out) > 0 {
			return out
		}
	}
	for _, b := range t.Bases {
		bases, _ := r.typeNamed(h.p, b)
		for _, bh := range bases {
			out = append(out, r.members(bh, name, depth+1)...)
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// valueType is the type a definition's value has: the declared type of a
// field or variable, the type of a function's result (the first, or the
// result-th of several), the type itself for a type (T.Method, a
// conversion).
func (r *resolver) valueType(h hit, result int) []hit {
	d := h.def()
	if isType(d) {
		return []hit{h}
	}
	t := d.Type
	if result > 0 || len(d.Results) > 0 {
		if result >= len(d.Results) {
			return nil
		}
		t = d.Results[result]
	}
	if t == "" {
		return nil
	}
	types, _ := r.typeNamed(h.p, t)
	return types
}

// member splits a Chain member "f#N" into f and N (0 without a suffix).
func member(m string) (string, int) {
	name, n, ok := strings.Cut(m, "#")
	if !ok {
		return m, 0
	}
	i, err := strconv.Atoi(n)
	if err != nil {
		return m, 0
	}
	return name, i
}

// container is the type whose members Self reaches from the definition
// at index in of p: a type itself, or a member's container.
func (r *resolver) container(p *parsed, in int) []hit {
	if in < 0 || in >= len(p.defs().Defs) {
		return nil
	}
	d := &p.d.Defs[in]
	name := d.Container
	if isType(d) {
		name = d.Name
	}
	if name == "" {
		return nil
	}
	hits, _ := r.typeNamed(p, name)
	return hits
}
