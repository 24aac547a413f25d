package repomap

import (
	"path"
	"slices"
	"strings"
)

// resolver turns a file's reference (a name and its scope) into a target:
// the name and the files whose definitions of it the reference may mean.
// Targets are shared: every file of a package referring to url.Parse
// reaches the same one, and each is resolved once.
type resolver struct {
	g            *Graph
	nameDefiners [][]int32
	// dirID[i] is file i's directory, numbered; byDir and byStem list the
	// files of a directory and of a path without its extension, and
	// dirsByBase and stemsByBase those keys by their last element, to
	// find the ones a spec ends as.
	dirID         []int32
	byDir, byStem map[string][]int32
	dirsByBase    map[string][]string
	stemsByBase   map[string][]string
	// specs numbers the normalised specs, specFiles[n] the files spec n
	// names (sorted); plain caches a spec as written that does not
	// depend on the referring file.
	specs     map[string]int32
	specFiles [][]int32
	plain     map[string]int32
	targets   map[targetKey]int32
	definers  [][]int32
	tName     []int32
}

// targetKey names a target: the name, and how its definers were narrowed:
// not at all (kind 0), to directory id (1), to spec id's files (2).
type targetKey struct {
	name int32
	kind uint8
	id   int32
}

func newResolver(g *Graph, nameDefiners [][]int32) *resolver {
	r := &resolver{g: g, nameDefiners: nameDefiners, dirID: make([]int32, len(g.Files)),
		byDir: map[string][]int32{}, byStem: map[string][]int32{}, dirsByBase: map[string][]string{},
		stemsByBase: map[string][]string{}, specs: map[string]int32{}, plain: map[string]int32{},
		targets: map[targetKey]int32{}}
	dirs := map[string]int32{}
	for i, p := range g.Files {
		dir := path.Dir(p)
		id, ok := dirs[dir]
		if !ok {
			id = int32(len(dirs))
			dirs[dir] = id
			r.dirsByBase[path.Base(dir)] = append(r.dirsByBase[path.Base(dir)], dir)
		}
		r.dirID[i] = id
		r.byDir[dir] = append(r.byDir[dir], int32(i))
		stem := strings.TrimSuffix(p, path.Ext(p))
		if len(r.byStem[stem]) == 0 {
			r.stemsByBase[path.Base(stem)] = append(r.stemsByBase[path.Base(stem)], stem)
		}
		r.byStem[stem] = append(r.byStem[stem], int32(i))
	}
	return r
}

// target resolves file from's reference to name in scope; -1 when no
// definition answers it.
func (r *resolver) target(from, name int32, scope string) int32 {
	all := r.nameDefiners[name]
	switch scope {
	case Unknown:
		return r.intern(targetKey{name: name}, func() []int32 { return all })
	case "":
		dir := r.dirID[from]
		return r.intern(targetKey{name, 1, dir}, func() []int32 {
			if local := r.narrow(all, func(f int32) bool { return r.dirID[f] == dir }); len(local) > 0 {
				return local
			}
			return all
		})
	}
	spec := r.spec(from, scope)
	files := r.specFiles[spec]
	if len(files) == 0 {
		return -1
	}
	return r.intern(targetKey{name, 2, spec}, func() []int32 {
		return r.narrow(all, func(f int32) bool { _, found := slices.BinarySearch(files, f); return found })
	})
}

// spec numbers the spec file from imports as written.
func (r *resolver) spec(from int32, written string) int32 {
	if id, ok := r.plain[written]; ok {
		return id
	}
	s := specPath(r.g.Files[from], written)
	id, ok := r.specs[s]
	if !ok {
		id = int32(len(r.specFiles))
		r.specs[s] = id
		r.specFiles = append(r.specFiles, r.filesOf(s))
	}
	if !strings.HasPrefix(strings.Trim(written, "\"'<>` "), ".") {
		r.plain[written] = id
	}
	return id
}

// narrow is the definers keep accepts: all itself when it accepts every
// one, nil when none.
func (r *resolver) narrow(all []int32, keep func(int32) bool) []int32 {
	n := 0
	for _, f := range all {
		if keep(f) {
			n++
		}
	}
	switch n {
	case len(all):
		return all
	case 0:
		return nil
	}
	out := make([]int32, 0, n)
	for _, f := range all {
		if keep(f) {
			out = append(out, f)
		}
	}
	return out
}

// intern returns k's target, made from definers() the first time; a
// target with no definers is -1.
func (r *resolver) intern(k targetKey, definers func() []int32) int32 {
	if t, ok := r.targets[k]; ok {
		return t
	}
	ds := definers()
	t := int32(-1)
	if len(ds) > 0 {
		t = int32(len(r.definers))
		r.definers = append(r.definers, ds)
		r.tName = append(r.tName, k.name)
	}
	r.targets[k] = t
	return t
}

// filesOf lists the files a spec names: those of a directory, or the
// module of a path without extension, that the spec names (pathsMeet).
func (r *resolver) filesOf(spec string) []int32 {
	if spec == "" {
		return nil
	}
	var files []int32
	base := path.Base(spec)
	for _, d := range r.dirsByBase[base] {
		if pathsMeet(d, spec) {
			files = append(files, r.byDir[d]...)
		}
	}
	for _, s := range r.stemsByBase[base] {
		if pathsMeet(s, spec) {
			files = append(files, r.byStem[s]...)
		}
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// specPath turns an import spec as written into the path it names: "./x"
// and "../x" relative to the importing file's directory, Python's ".x"
// too, a dotted or ::-separated module (os.path, a::b, java.util.List)
// and a PHP namespace into slashes, quotes and brackets dropped.
func specPath(from, spec string) string {
	s := strings.Trim(spec, "\"'<>` ")
	if strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") {
		return strings.TrimPrefix(path.Join(path.Dir(from), s), "./")
	}
	if strings.HasPrefix(s, ".") {
		rest := strings.TrimLeft(s, ".")
		dir := path.Dir(from)
		for range len(s) - len(rest) - 1 {
			dir = path.Dir(dir)
		}
		return strings.TrimPrefix(path.Join(dir, strings.ReplaceAll(rest, ".", "/")), "./")
	}
	s = strings.ReplaceAll(s, "\\", "/")
	if !strings.Contains(s, "/") {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "::", "/"), ".", "/")
	}
	return strings.Trim(s, "/")
}

// pathsMeet reports whether a workspace path p is what spec names: the
// same, p inside a vendor or source folder ending as spec does
// (vendor/golang.org/x/net for golang.org/x/net), or spec a module path
// ending as p does (example.com/m/beta for beta).
func pathsMeet(p, spec string) bool {
	return p == spec || strings.HasSuffix(p, "/"+spec) || strings.HasSuffix(spec, "/"+p)
}
