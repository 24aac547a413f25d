package related

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// resolve maps one import spec of from, as the index stores it, to
// workspace files. For Go the result is a package: its directory and its
// non-test files. names are the names a Python "from X import a, b"
// brings in, which may be submodules. Nothing found means external.
func (w *workspace) resolve(from, fam, spec string, names []string) (files []string, dir string) {
	one := func(p string) []string {
		if p == "" {
			return nil
		}
		return []string{p}
	}
	switch fam {
	case "go":
		if d := w.resolveGo(from, spec); d != "" {
			return w.goFiles(d), d
		}
		return nil, ""
	case "python":
		return w.resolvePython(from, spec, names), ""
	case "js":
		return one(w.resolveJS(from, spec)), ""
	case "c":
		// An include names a file next to the includer first, then any
		// indexed file ending in the include path.
		if local := path.Join(path.Dir(from), spec); w.files[local] {
			return []string{local}, ""
		}
		return one(w.suffix(path.Clean(spec), from)), ""
	case "java":
		return w.resolveJava(from, spec), ""
	case "rust":
		return w.resolveRust(from, spec), ""
	case "csharp":
		return w.resolveDotted(from, strings.TrimSpace(afterEq(spec)), ".", ".cs"), ""
	case "php":
		return w.resolvePHP(from, spec, names), ""
	case "ruby":
		return one(w.resolveRuby(from, spec)), ""
	case "bash":
		return one(w.resolveBash(from, spec)), ""
	}
	return nil, ""
}

// resolvePython follows Python's rules: leading dots climb from the
// importer's package; absolute modules are tried from the importer's
// directory, the parent of its top package, the root and src/. A module is
// m.py, m.pyi or m/__init__.py; imported names may be submodules.
func (w *workspace) resolvePython(from, spec string, names []string) []string {
	dots := len(spec) - len(strings.TrimLeft(spec, "."))
	rest := strings.ReplaceAll(spec[dots:], ".", "/")
	var roots []string
	if dots > 0 {
		base := path.Dir(from)
		for i := 1; i < dots; i++ {
			base = path.Dir(base)
		}
		roots = []string{base}
	} else {
		top := path.Dir(from)
		for top != "." && w.files[path.Join(top, "__init__.py")] {
			top = path.Dir(top)
		}
		roots = []string{path.Dir(from), top, ".", "src"}
	}
	for _, r := range roots {
		mod := path.Join(r, rest)
		var hits []string
		if rest == "" {
			hits = appendNonEmpty(hits, w.probe(path.Join(mod, "__init__.py")))
		} else {
			hits = appendNonEmpty(hits, w.probe(mod+".py", mod+".pyi", path.Join(mod, "__init__.py")))
		}
		for _, n := range names {
			sub := path.Join(mod, n)
			hits = appendNonEmpty(hits, w.probe(sub+".py", path.Join(sub, "__init__.py")))
		}
		if len(hits) > 0 {
			return hits
		}
	}
	if dots == 0 && strings.Contains(rest, "/") {
		if p := w.suffix(rest+".py", from); p != "" {
			return []string{p}
		}
		if p := w.suffix(path.Join(rest, "__init__.py"), from); p != "" {
			return []string{p}
		}
	}
	return nil
}

func appendNonEmpty(list []string, s string) []string {
	if s == "" {
		return list
	}
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

var pyFromImport = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\n)*)`)
})

// pythonNames lists, per module spec, the names "from spec import ..."
// statements of text bring in.
func pythonNames(text []byte) map[string][]string {
	out := map[string][]string{}
	for _, m := range pyFromImport().FindAllSubmatch(text, -1) {
		list := strings.NewReplacer("(", " ", ")", " ", "\\\n", " ").Replace(string(m[2]))
		for _, item := range strings.Split(list, ",") {
			item, _, _ = strings.Cut(item, "#")
			f := strings.Fields(item)
			if len(f) > 0 && f[0] != "*" {
				out[string(m[1])] = append(out[string(m[1])], f[0])
			}
		}
	}
	return out
}

var jsExts = []string{".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".d.ts"}

// resolveJS resolves relative specifiers (and the common "@/" and "~/"
// aliases for src/) with extension and index probing; a ".js" specifier
// may name a .ts file, as TypeScript's ESM output requires.
func (w *workspace) resolveJS(from, spec string) string {
	var bases []string
	switch {
	case strings.HasPrefix(spec, "."):
		bases = []string{path.Join(path.Dir(from), spec)}
	case strings.HasPrefix(spec, "/"):
		bases = []string{path.Clean(spec[1:])}
	case strings.HasPrefix(spec, "@/"), strings.HasPrefix(spec, "~/"):
		bases = []string{path.Join("src", spec[2:]), path.Clean(spec[2:])}
	default:
		return w.jsPackage(spec) // a workspace package by name (js.go)
	}
	for _, b := range bases {
		if w.files[b] {
			return b
		}
		stems := []string{b}
		switch ext := path.Ext(b); ext {
		case ".js", ".jsx", ".mjs", ".cjs":
			stems = append(stems, strings.TrimSuffix(b, ext))
		}
		for _, s := range stems {
			for _, ext := range jsExts {
				if w.files[s+ext] {
					return s + ext
				}
			}
		}
		for _, ext := range jsExts {
			if p := path.Join(b, "index"+ext); w.files[p] {
				return p
			}
		}
	}
	return ""
}

// resolveJava maps a.b.C to a file ending a/b/C.java (a static import's
// member or a nested class drops the last part), and a.b.* to the .java
// files of the directory ending a/b.
func (w *workspace) resolveJava(from, spec string) []string {
	if pkg, ok := strings.CutSuffix(spec, ".*"); ok {
		return w.dirSuffixFiles(strings.ReplaceAll(pkg, ".", "/"), ".java", from)
	}
	rel := strings.ReplaceAll(spec, ".", "/")
	for i := 0; i < 2 && strings.Contains(rel, "/"); i++ {
		if p := w.suffix(rel+".java", from); p != "" {
			return []string{p}
		}
		rel = path.Dir(rel)
	}
	return nil
}

// resolveDotted maps a namespace-like name (C#, PHP) to a file ending in
// its path, dropping leading parts (the root namespace rarely has a
// directory) while two remain; failing that, to the files of a directory
// ending in it, down to its last part (a C# namespace is a directory).
func (w *workspace) resolveDotted(from, spec, sep, ext string) []string {
	parts := strings.Split(strings.Trim(spec, sep+" "), sep)
	for i := 0; i < len(parts); i++ {
		rel := strings.Join(parts[i:], "/")
		if len(parts)-i >= 2 {
			if p := w.suffix(rel+ext, from); p != "" {
				return []string{p}
			}
		}
		if files := w.dirSuffixFiles(rel, ext, from); len(files) > 0 {
			return files
		}
	}
	return nil
}

// dirSuffixFiles lists the files with extension ext of the directory that
// ends in rel and shares the most directories with from.
func (w *workspace) dirSuffixFiles(rel, ext, from string) []string {
	best, bestScore := "", -1
	for d := range w.dirs {
		if d != rel && !strings.HasSuffix(d, "/"+rel) {
			continue
		}
		if s := sharedDirs(d+"/x", from); s > bestScore || s == bestScore && d < best {
			best, bestScore = d, s
		}
	}
	var out []string
	for _, p := range w.dirs[best] {
		if strings.HasSuffix(p, ext) {
			out = append(out, p)
		}
	}
	return out
}

// resolveRust follows crate::, self:: and super:: paths to module files
// (a/b.rs or a/b/mod.rs, trying the longest module path first); paths of
// other crates are external. A braced group resolves each member.
func (w *workspace) resolveRust(from, spec string) []string {
	spec = strings.TrimSpace(spec)
	if prefix, group, ok := strings.Cut(spec, "{"); ok {
		var out []string
		group = strings.TrimSuffix(strings.TrimSpace(group), "}")
		for _, member := range splitTopLevel(group) {
			member = strings.TrimSpace(member)
			if member == "self" || member == "" {
				member = ""
			}
			full := strings.TrimSuffix(prefix, "::")
			if member != "" {
				full += "::" + member
			}
			for _, p := range w.resolveRust(from, full) {
				out = appendNonEmpty(out, p)
			}
		}
		return out
	}
	spec, _, _ = strings.Cut(spec, " as ")
	segs := strings.Split(strings.TrimSuffix(spec, "::*"), "::")
	var dir string
	switch segs[0] {
	case "crate":
		dir = w.rustCrateSrc(from)
	case "self":
		dir = rustModDir(from)
	case "super":
		dir = path.Dir(rustModDir(from))
		for len(segs) > 1 && segs[1] == "super" {
			dir, segs = path.Dir(dir), segs[1:]
		}
	default:
		if dir = w.rustCrateNamed(from, segs[0]); dir == "" {
			return nil
		}
	}
	segs = segs[1:]
	for n := len(segs); n >= 1; n-- {
		base := path.Join(append([]string{dir}, segs[:n]...)...)
		if p := w.probe(base+".rs", path.Join(base, "mod.rs")); p != "" {
			return []string{p}
		}
	}
	// No module file: the path names the module itself, or an item of it
	// (crate::Error is lib.rs's).
	if p := w.probe(path.Join(dir, "lib.rs"), path.Join(dir, "main.rs"), path.Join(dir, "mod.rs"), dir+".rs"); p != "" {
		return []string{p}
	}
	return nil
}

// splitTopLevel splits s at commas outside braces.
func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// rustCrateSrc is the src directory of the crate holding from: next to the
// nearest Cargo.toml above it, else the nearest src directory, else the root.
func (w *workspace) rustCrateSrc(from string) string {
	for d := path.Dir(from); ; d = path.Dir(d) {
		if w.files[path.Join(d, "Cargo.toml")] {
			return path.Join(d, "src")
		}
		if d == "." {
			break
		}
	}
	if i := strings.LastIndex("/"+from, "/src/"); i >= 0 {
		return path.Join(from[:i], "src")
	}
	return "."
}

// rustModDir is the directory holding the child modules of from's module.
func rustModDir(from string) string {
	switch path.Base(from) {
	case "mod.rs", "lib.rs", "main.rs":
		return path.Dir(from)
	}
	return strings.TrimSuffix(from, ".rs")
}

// resolveRuby tries require_relative's rule, then lib/ and the root, then
// any file ending in a path of two or more parts.
func (w *workspace) resolveRuby(from, spec string) string {
	rel := spec
	if path.Ext(rel) == "" {
		rel += ".rb"
	}
	if p := w.probe(path.Join(path.Dir(from), rel), path.Join("lib", rel), path.Clean(rel)); p != "" {
		return p
	}
	if strings.Contains(rel, "/") {
		return w.suffix(path.Clean(rel), from)
	}
	return ""
}

// resolveBash drops a leading variable directory ("$DIR/lib.sh") and tries
// the sourcing file's directory, the root, then a unique base name.
func (w *workspace) resolveBash(from, spec string) string {
	rel := spec
	if strings.HasPrefix(rel, "$") || strings.HasPrefix(rel, "~") {
		_, after, ok := strings.Cut(rel, "/")
		if !ok {
			return ""
		}
		rel = after
	}
	if p := w.probe(path.Join(path.Dir(from), rel), path.Clean(rel)); p != "" {
		return p
	}
	if cands := w.bases[path.Base(rel)]; len(cands) == 1 {
		return cands[0]
	}
	return ""
}

func afterEq(s string) string {
	if _, after, ok := strings.Cut(s, "="); ok {
		return after
	}
	return s
}
