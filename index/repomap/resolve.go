package repomap

import (
	"path"
	"slices"
	"strings"
)

// resolver turns a file's reference (a name and its scope) into a target:
// the name and the files whose definitions of it the reference may mean.
// Targets are shared: every file of a package referring to url.Parse
// reaches the same one.
type resolver struct {
	g            *Graph
	nameDefiners [][]int32
	// dirOf[i] is file i's directory; byDir and byStem list the files
	// of a directory and of a path without its extension, and dirsByBase
	// and stemsByBase those keys by their last element, to find the ones
	// a spec ends as.
	dirOf         []string
	byDir, byStem map[string][]int32
	dirsByBase    map[string][]string
	stemsByBase   map[string][]string
	// specFiles caches the files a normalised spec names (sorted).
	specFiles map[string][]int32
	targets   map[targetKey]int32
	definers  [][]int32
	tName     []int32
}

// targetKey names a target: the name, and how its definers were narrowed
// (scope "" for every definer, "dir:" for a directory, "spec:" for an
// import's files).
type targetKey struct {
	name  int32
	scope string
}

func newResolver(g *Graph, nameDefiners [][]int32) *resolver {
	r := &resolver{g: g, nameDefiners: nameDefiners, dirOf: make([]string, len(g.Files)),
		byDir: map[string][]int32{}, byStem: map[string][]int32{}, dirsByBase: map[string][]string{},
		stemsByBase: map[string][]string{}, specFiles: map[string][]int32{}, targets: map[targetKey]int32{}}
	for i, p := range g.Files {
		dir := path.Dir(p)
		r.dirOf[i] = dir
		if len(r.byDir[dir]) == 0 {
			r.dirsByBase[path.Base(dir)] = append(r.dirsByBase[path.Base(dir)], dir)
		}
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
	case "", Unknown:
		if scope == "" {
			dir := r.dirOf[from]
			if local := r.narrow(all, func(f int32) bool { return r.dirOf[f] == dir }); len(local) > 0 {
				return r.intern(targetKey{name, "dir:" + dir}, local)
			}
		}
		return r.intern(targetKey{name, ""}, all)
	}
	spec := specPath(r.g.Files[from], scope)
	files, ok := r.specFiles[spec]
	if !ok {
		files = r.filesOf(spec)
		r.specFiles[spec] = files
	}
	if len(files) == 0 {
		return -1
	}
	in := r.narrow(all, func(f int32) bool { _, found := slices.BinarySearch(files, f); return found })
	if len(in) == 0 {
		return -1
	}
	return r.intern(targetKey{name, "spec:" + spec}, in)
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

func (r *resolver) intern(k targetKey, definers []int32) int32 {
	if t, ok := r.targets[k]; ok {
		return t
	}
	t := int32(len(r.definers))
	r.targets[k] = t
	r.definers = append(r.definers, definers)
	r.tName = append(r.tName, k.name)
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
