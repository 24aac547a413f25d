package related

import (
	"path"
	"regexp"
	"sync"
)

// callerFile is a file that may call the selection, and how calls into
// the target's Go package are qualified there.
type callerFile struct {
	path    string
	samePkg bool   // Go: the target's package itself (unqualified calls)
	spec    string // Go: the import of the target's package, for its alias
}

func (e *expander) callerFiles(imps []importer) []callerFile {
	var files []callerFile
	seen := map[string]bool{}
	add := func(f callerFile) {
		if !seen[f.path] {
			seen[f.path] = true
			files = append(files, f)
		}
	}
	if !e.whole {
		add(callerFile{path: e.path, samePkg: true})
	}
	seen[e.path] = true
	for _, imp := range imps {
		add(callerFile{path: imp.path, spec: imp.spec})
	}
	switch e.fam {
	case "go", "java":
		ext := path.Ext(e.path)
		dirs := []string{e.dir()}
		if e.fam == "java" && e.xp != nil {
			dirs = e.w.javaPackageDirs(e.dir(), e.xp.x.Package)
		}
		for _, d := range dirs {
			for _, p := range e.w.dirs[d] {
				if path.Ext(p) == ext {
					add(callerFile{path: p, samePkg: true})
				}
			}
		}
	case "python", "js":
	default:
		for _, p := range e.w.paths {
			if familyOf(p) == e.fam {
				add(callerFile{path: p})
			}
		}
	}
	return files
}

// callerTier puts the target's own file first, then its directory.
func (e *expander) callerTier(p string) int {
	switch {
	case p == e.path:
		return 0
	case path.Dir(p) == e.dir():
		return 1
	}
	return 2
}

var goPackageRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^package[ \t]+([\p{L}_][\p{L}\p{N}_]*)`) })

// goPackageClause is the package name a Go file declares, or "".
func goPackageClause(text []byte) string {
	if m := goPackageRe().FindSubmatch(text); m != nil {
		return string(m[1])
	}
	return ""
}
