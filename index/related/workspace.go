package related

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/store"
)

// workspace is what import resolution needs to know about the index,
// built once per expansion from the path list (no record is decoded but
// the go.mod files).
type workspace struct {
	tx     *store.Tx
	paths  []string
	files  map[string]bool
	dirs   map[string][]string // directory -> its files, in path order
	bases  map[string][]string // base name -> paths, for suffix matches
	goDirs map[string]bool     // directories holding .go files
	goMods []goModule          // longest directory first
	// goBare: no go.mod at the root, so an import path may simply be a
	// directory from the root (a GOPATH-like tree).
	goBare bool
	// jsPkgs are the package.json packages by name, read on first use (js.go).
	jsPkgs map[string]jsPackage
	php    *phpAutoload // composer.json PSR-4 maps, read on first use (php.go)
	// javaDirs caches the directories of a Java package, by the asking
	// directory and the package (java.go).
	javaDirs map[string][]string
}

type goModule struct{ path, dir string }

func newWorkspace(tx *store.Tx) *workspace {
	w := &workspace{tx: tx, paths: tx.Paths(), files: map[string]bool{}, dirs: map[string][]string{},
		bases: map[string][]string{}, goDirs: map[string]bool{}, goBare: true}
	for _, p := range w.paths {
		w.files[p] = true
		d, base := path.Split(p)
		d = path.Clean(d)
		w.dirs[d] = append(w.dirs[d], p)
		w.bases[base] = append(w.bases[base], p)
		switch {
		case strings.HasSuffix(base, ".go"):
			w.goDirs[d] = true
		case base == "go.mod":
			if mod := goModulePath(tx, p); mod != "" {
				w.goMods = append(w.goMods, goModule{mod, d})
				if d == "." {
					w.goBare = false
				}
			}
		}
	}
	slices.SortStableFunc(w.goMods, func(a, b goModule) int { return len(b.dir) - len(a.dir) })
	return w
}

// goModulePath reads the module line of a go.mod in the index.
func goModulePath(tx *store.Tx, p string) string {
	text, ok := tx.Blob(p)
	if !ok {
		return ""
	}
	for _, line := range bytes.Split(text, []byte("\n")) {
		if f := strings.Fields(string(line)); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// family groups languages that import each other's files.
func family(language string) string {
	switch language {
	case lang.JavaScript, lang.TypeScript, lang.TSX:
		return "js"
	case lang.C, lang.CPP:
		return "c"
	}
	return language
}

func familyOf(p string) string { return family(lang.Detect(p, nil)) }

// goFiles are the non-test Go files of a package directory.
func (w *workspace) goFiles(dir string) []string {
	var out []string
	for _, p := range w.dirs[dir] {
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			out = append(out, p)
		}
	}
	return out
}

// goModuleOf is the module holding p, if any.
func (w *workspace) goModuleOf(p string) (goModule, bool) {
	for _, m := range w.goMods {
		if m.dir == "." || strings.HasPrefix(p, m.dir+"/") {
			return m, true
		}
	}
	return goModule{}, false
}

// resolveGo maps an import path to a package directory of the workspace,
// or "". Modules come first (longest directory first), then the vendor
// directory of the importer's module; the module "std" (GOROOT/src) and a
// tree without a root go.mod take import paths as directories.
func (w *workspace) resolveGo(from, spec string) string {
	for _, m := range w.goMods {
		var d string
		switch {
		case m.path == "std" && !strings.Contains(firstElem(spec), "."):
			d = path.Join(m.dir, spec)
		case spec == m.path:
			d = m.dir
		case strings.HasPrefix(spec, m.path+"/"):
			d = path.Join(m.dir, spec[len(m.path)+1:])
		default:
			continue
		}
		if w.goDirs[d] {
			return d
		}
	}
	if m, ok := w.goModuleOf(from); ok {
		if d := path.Join(m.dir, "vendor", spec); w.goDirs[d] {
			return d
		}
	}
	if w.goBare {
		for _, d := range []string{spec, path.Join("src", spec)} {
			if w.goDirs[d] {
				return d
			}
		}
	}
	return ""
}

func firstElem(p string) string {
	first, _, _ := strings.Cut(p, "/")
	return first
}

// probe returns the first candidate that is an indexed file, or "".
func (w *workspace) probe(cands ...string) string {
	for _, c := range cands {
		if w.files[c] {
			return c
		}
	}
	return ""
}

// suffix finds the indexed file whose path is rel or ends with "/"+rel,
// preferring the one sharing the most directories with from, then the
// first in path order.
func (w *workspace) suffix(rel, from string) string {
	best, bestScore := "", -1
	for _, p := range w.bases[path.Base(rel)] {
		if p != rel && !strings.HasSuffix(p, "/"+rel) {
			continue
		}
		if s := sharedDirs(p, from); s > bestScore {
			best, bestScore = p, s
		}
	}
	return best
}

// sharedDirs counts the leading directories two paths have in common.
func sharedDirs(a, b string) int {
	da, db := strings.Split(path.Dir(a), "/"), strings.Split(path.Dir(b), "/")
	n := 0
	for n < len(da) && n < len(db) && da[n] == db[n] && da[n] != "." {
		n++
	}
	return n
}
