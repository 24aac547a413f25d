package related

import (
	"bytes"
	"encoding/json"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/xref"
)

// JavaScript and TypeScript scoping: a module sees its own top-level
// names and what it imports, nothing else. What another module exports is
// found through its re-exports too (a barrel index.ts): index/xref
// records `export {a as b} from "./x"` as Import{Local b, Member a, Spec
// ./x}, `export * from "./x"` as Local "*", and the default export and a
// local rename with Spec "" (Local "default" or the new name, Member the
// definition's name).

// jsMaxHops bounds the chain of re-exports followed for one name.
const jsMaxHops = 6

// jsTopLevel finds the top-level definitions of name that JS module q
// defines or re-exports ("default": its default export).
func (r *resolver) jsTopLevel(q, name string, keep func(*xref.Def) bool, hops int) []hit {
	f := r.file(q)
	if f == nil {
		return nil
	}
	var out []hit
	if name != "default" && bytes.Contains(f.text, []byte(name)) && f.defs() != nil {
		for i := range f.d.Defs {
			if d := &f.d.Defs[i]; d.Name == name && d.Container == "" && (keep == nil || keep(d)) {
				out = append(out, hit{f, i})
			}
		}
	}
	if len(out) > 0 || hops >= jsMaxHops || f.defs() == nil {
		return out
	}
	// A binding the module imports (and re-exports) first: a local rename
	// `export {a as b}` names b only for importers, and the module's own
	// b, if it imports one, is that import.
	for i, imp := range f.d.Imports {
		if imp.Local == name && imp.Member != "" && imp.Spec != "" {
			for _, o := range r.importFiles(f, i) {
				out = append(out, r.jsTopLevel(o, imp.Member, keep, hops+1)...)
			}
		}
	}
	if len(out) > 0 {
		return dedupHits(out)
	}
	for i, imp := range f.d.Imports {
		switch {
		case imp.Local == name && imp.Member != "" && imp.Spec == "" && imp.Member != name:
			out = append(out, r.jsTopLevel(q, imp.Member, keep, hops+1)...)
		case imp.Local == "*" && imp.Spec != "" && name != "default":
			for _, o := range r.importFiles(f, i) {
				out = append(out, r.jsTopLevel(o, name, keep, hops+1)...)
			}
		}
	}
	return dedupHits(out)
}

// jsCallerSymbol names the definition a call of f is made in when f is a
// JS module: the innermost definition around it (a property function
// `fetch = (req) => ...`, an object literal's method, a variable's
// initializer), which no chunk may have of its own. "" otherwise.
func jsCallerSymbol(f *parsed, ref xref.Ref) (symbol, kind string) {
	if family(f.lang) != "js" || f.x == nil || ref.In < 0 || ref.In >= len(f.x.Defs) {
		return "", ""
	}
	d := f.x.Defs[ref.In]
	if d.Container == "" {
		return d.Name, d.Kind
	}
	return d.Container + "." + d.Name, d.Kind
}

// jsUncallable reports a JS definition that a call cannot reach though
// its name matches: an interface, a type alias, an enum or a namespace
// shares its name with the value called (`export const ZodObject = ...`
// beside `export interface ZodObject`), which is what runs.
func jsUncallable(h hit) bool {
	if family(h.p.lang) != "js" {
		return false
	}
	k := h.def().Kind
	return k != "class" && typeKinds[k]
}

// jsBarrelImporters adds to the importers of the target the files that
// import it through re-exports (a barrel index.ts, a package entry point),
// transitively: their calls can reach it too.
func (e *expander) jsBarrelImporters(imps []importer, targets map[string][]int) ([]importer, error) {
	if e.fam != "js" {
		return imps, nil
	}
	rev := map[string][]importer{} // file -> the files importing it
	keep := func(p string) bool { return familyOf(p) == "js" }
	err := e.tx.EachImports(keep, func(p string, specs []string) error {
		for _, spec := range specs {
			files, _ := e.w.resolve(p, "js", spec, nil)
			for _, f := range files {
				if f != p {
					rev[f] = append(rev[f], importer{p, spec})
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{e.path: true}
	for _, imp := range imps {
		seen[imp.path] = true
	}
	// The classes whose methods are targets: a file subclassing one (under
	// any alias) passes them on, and its importers call them through
	// the subclass (new App().mount()).
	classes := map[string]bool{}
	for _, is := range targets {
		for _, i := range is {
			if c := e.xp.x.Defs[i].Container; c != "" {
				classes[c] = true
			}
		}
	}
	queue := []string{e.path}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, imp := range rev[f] {
			if f != e.path && !seen[imp.path] {
				seen[imp.path] = true
				imps = append(imps, imp)
			}
			if (e.reexports(imp) || e.extendsClass(imp.path, classes)) && !slices.Contains(queue, imp.path) && imp.path != e.path {
				queue = append(queue, imp.path)
			}
		}
		if len(queue) > 64 {
			break // a re-export web that large is a package entry, not a chain
		}
	}
	return imps, nil
}

// jsExtendsRe finds `class X extends Y` (Y possibly qualified: ns.Y).
var jsExtendsRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bclass\s+([\p{L}_$][\p{L}\p{N}_$]*)(?:\s*<[^{]*?>)?\s+extends\s+(?:[\p{L}_$][\p{L}\p{N}_$]*\.)?([\p{L}_$][\p{L}\p{N}_$]*)`)
})

// jsAliasRe finds the aliases of an import (`{ AppBase as Base }`).
var jsAliasRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b([\p{L}_$][\p{L}\p{N}_$]*)\s+as\s+([\p{L}_$][\p{L}\p{N}_$]*)`)
})

// extendsClass reports whether file p declares a subclass of one of
// classes, by name or through an import alias, and adds the subclasses
// to classes, so a subclass of a subclass is found too.
func (e *expander) extendsClass(p string, classes map[string]bool) bool {
	if len(classes) == 0 {
		return false
	}
	text, ok := e.tx.Blob(p)
	if !ok || !bytes.Contains(text, []byte("extends")) {
		return false
	}
	known := maps.Clone(classes)
	for _, m := range jsAliasRe().FindAllSubmatch(text, -1) {
		if classes[string(m[1])] {
			known[string(m[2])] = true
		}
	}
	found := false
	for _, m := range jsExtendsRe().FindAllSubmatch(text, -1) {
		if known[string(m[2])] {
			classes[string(m[1])], found = true, true
		}
	}
	return found
}

// reexports reports whether imp's file re-exports what its spec names
// (`export * from "spec"`, `export {a} from "spec"`).
func (e *expander) reexports(imp importer) bool {
	text, ok := e.tx.Blob(imp.path)
	if !ok {
		return false
	}
	for _, q := range []string{`"` + imp.spec + `"`, `'` + imp.spec + `'`} {
		for off := 0; ; {
			i := bytes.Index(text[off:], []byte(q))
			if i < 0 {
				break
			}
			i += off
			// The statement holding the spec starts at the last line
			// beginning with import or export.
			if bytes.LastIndex(text[:i], []byte("\nexport")) > bytes.LastIndex(text[:i], []byte("\nimport")) ||
				bytes.HasPrefix(text, []byte("export")) && !bytes.Contains(text[:i], []byte("\nimport")) && !bytes.Contains(text[:i], []byte("\nexport")) {
				return true
			}
			off = i + 1
		}
	}
	return false
}

// jsPackage is one package.json of the workspace.
type jsPackage struct {
	dir     string
	exports json.RawMessage
	entries []string // main, module, source, types
}

// jsPackage resolves a bare module spec to a file of the workspace
// package of that name: a package importing itself ("zod/v3" inside zod),
// or a monorepo's packages importing each other. The package's exports
// map decides (the first target of the subpath that is an indexed file,
// a built dist/ or lib/ path mapped back to src/), then main/module/
// source, then the subpath as a directory of the package or its src/.
func (w *workspace) jsPackage(spec string) string {
	if w.jsPkgs == nil {
		w.loadJSPackages()
	}
	name, sub := spec, "."
	if _, ok := w.jsPkgs[name]; !ok {
		parts := strings.Split(spec, "/")
		n := 1
		if strings.HasPrefix(spec, "@") {
			n = 2
		}
		if len(parts) <= n {
			return ""
		}
		name, sub = strings.Join(parts[:n], "/"), "./"+strings.Join(parts[n:], "/")
	}
	pkg, ok := w.jsPkgs[name]
	if !ok {
		return ""
	}
	var targets []string
	if len(pkg.exports) > 0 {
		targets = exportTargets(pkg.exports, sub)
	} else if sub == "." {
		targets = pkg.entries
	}
	if sub != "." {
		targets = append(targets, sub, "./src/"+sub[2:])
	} else {
		targets = append(targets, "./src/index", "./index")
	}
	from := path.Join(pkg.dir, "package.json")
	for _, t := range targets {
		for _, c := range []string{t, srcOfBuilt(t)} {
			if c == "" {
				continue
			}
			if f := w.resolveJS(from, "./"+strings.TrimPrefix(c, "./")); f != "" && !strings.HasSuffix(f, ".d.ts") {
				return f
			}
		}
	}
	return ""
}

// srcOfBuilt maps a built file (dist/x.js, lib/x.mjs, x.d.ts) back to its
// source (src/x), "" when t is no such path.
func srcOfBuilt(t string) string {
	t = strings.TrimPrefix(t, "./")
	for _, d := range []string{"dist/", "lib/", "build/", "out/"} {
		if rest, ok := strings.CutPrefix(t, d); ok {
			rest = strings.TrimSuffix(strings.TrimSuffix(rest, ".d.ts"), path.Ext(rest))
			return "src/" + strings.TrimSuffix(rest, ".d")
		}
	}
	return ""
}

// exportTargets lists, in order, the paths the exports map of a package
// gives subpath ("." or "./x"), through conditions and "./*" patterns.
func exportTargets(raw json.RawMessage, sub string) []string {
	var top any
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	m, ok := top.(map[string]any)
	if !ok || !hasSubpathKeys(m) {
		if sub != "." {
			return nil
		}
		return leaves(top)
	}
	if v, ok := m[sub]; ok {
		return leaves(v)
	}
	for k, v := range m {
		pre, post, ok := strings.Cut(k, "*")
		if !ok || !strings.HasPrefix(sub, pre) || !strings.HasSuffix(sub, post) || len(sub) < len(pre)+len(post) {
			continue
		}
		star := sub[len(pre) : len(sub)-len(post)]
		var out []string
		for _, l := range leaves(v) {
			out = append(out, strings.ReplaceAll(l, "*", star))
		}
		return out
	}
	return nil
}

func hasSubpathKeys(m map[string]any) bool {
	for k := range m {
		if strings.HasPrefix(k, ".") {
			return true
		}
	}
	return false
}

// leaves are the string targets of an exports entry, conditions in order
// of their keys as written being lost to JSON decoding: a source
// condition first, then the rest sorted.
func leaves(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, leaves(x)...)
		}
		return out
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		slices.SortStableFunc(keys, func(a, b string) int { return sourceFirst(a) - sourceFirst(b) })
		var out []string
		for _, k := range keys {
			out = append(out, leaves(v[k])...)
		}
		return out
	}
	return nil
}

func sourceFirst(cond string) int {
	switch {
	case strings.Contains(cond, "source"), cond == "development":
		return 0
	case cond == "types":
		return 2
	}
	return 1
}

// loadJSPackages reads the name, exports and entry points of every
// indexed package.json.
func (w *workspace) loadJSPackages() {
	w.jsPkgs = map[string]jsPackage{}
	for _, p := range w.paths {
		if path.Base(p) != "package.json" {
			continue
		}
		text, ok := w.tx.Blob(p)
		if !ok {
			continue
		}
		var pj struct {
			Name    string          `json:"name"`
			Exports json.RawMessage `json:"exports"`
			Main    string          `json:"main"`
			Module  string          `json:"module"`
			Source  string          `json:"source"`
			Types   string          `json:"types"`
		}
		if json.Unmarshal(text, &pj) != nil || pj.Name == "" {
			continue
		}
		if o, dup := w.jsPkgs[pj.Name]; dup && strings.Count(o.dir, "/") <= strings.Count(path.Dir(p), "/") {
			continue // a fixture or example reusing a name: the shallowest wins
		}
		pkg := jsPackage{dir: path.Dir(p), exports: pj.Exports}
		for _, e := range []string{pj.Source, pj.Module, pj.Main, pj.Types} {
			if e != "" {
				pkg.entries = append(pkg.entries, e)
			}
		}
		w.jsPkgs[pj.Name] = pkg
	}
}
