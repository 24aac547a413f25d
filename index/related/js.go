package related

import (
	"bytes"

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
	if name != "default" && bytes.Contains(f.text, []byte(name)) && f.parse() != nil {
		for i := range f.x.Defs {
			if d := &f.x.Defs[i]; d.Name == name && d.Container == "" && (keep == nil || keep(d)) {
				out = append(out, hit{f, i})
			}
		}
	}
	if len(out) > 0 || hops >= jsMaxHops || f.parse() == nil {
		return out
	}
	// A binding the module imports (and re-exports) first: a local rename
	// `export {a as b}` names b only for importers, and the module's own
	// b, if it imports one, is that import.
	for i, imp := range f.x.Imports {
		if imp.Local == name && imp.Member != "" && imp.Spec != "" {
			for _, o := range r.importFiles(f, i) {
				out = append(out, r.jsTopLevel(o, imp.Member, keep, hops+1)...)
			}
		}
	}
	if len(out) > 0 {
		return dedupHits(out)
	}
	for i, imp := range f.x.Imports {
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
