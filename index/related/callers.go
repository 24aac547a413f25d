package related

import (
	"cmp"
	"maps"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
)

// targetName is a name the selection defines and how callers reach it.
type targetName struct{ method, function bool }

// callerFile is a file that may call the selection, and how calls into
// the target's Go package are qualified there.
type callerFile struct {
	path    string
	samePkg bool   // Go: the target's package itself (unqualified calls)
	spec    string // Go: the import of the target's package, for its alias
}

// callers finds the chunks outside the selection that call the names it
// defines. Candidate files follow the language: for Go the package and
// its importers, for Python and JS/TS the importers, for Java the
// directory and importers, otherwise every file of the language family.
func (e *expander) callers(imps []importer) ([]Ref, error) {
	names := e.targetNames()
	if len(names) > 3 {
		var common []string
		for _, n := range slices.Sorted(maps.Keys(names)) {
			defs, err := e.lookup(n)
			if err != nil {
				return nil, err
			}
			if len(defs) > ambiguousDefs {
				common = append(common, n)
				delete(names, n)
			}
		}
		if len(common) > 0 {
			e.notes = append(e.notes, "callers not searched for names defined more than 12 times (select one symbol to search them): "+listNames(common))
		}
	}
	if len(names) == 0 {
		return []Ref{}, nil
	}
	files := e.callerFiles(imps)
	found := e.scanCallers(files, names)
	var out []Ref
	for i, f := range files {
		r := found[i]
		if r.err != nil {
			return nil, r.err
		}
		if len(r.sites) == 0 {
			continue
		}
		chunks := e.chunks
		if f.path != e.path {
			var err error
			if chunks, err = e.tx.FileChunks(f.path); err != nil {
				return nil, err
			}
		}
		out = append(out, e.callerRefs(f.path, r.text, chunks, r.sites)...)
	}
	slices.SortFunc(out, func(a, b Ref) int {
		return cmp.Or(e.callerTier(a.Path)-e.callerTier(b.Path), strings.Compare(a.Path, b.Path), a.Line-b.Line, strings.Compare(a.Name, b.Name))
	})
	return e.capRefs("callers", out), nil
}

// targetNames are the callable names the selection defines.
func (e *expander) targetNames() map[string]*targetName {
	chunks := e.chunks
	if !e.whole {
		chunks = e.covered()
	}
	names := map[string]*targetName{}
	for _, c := range chunks {
		if c.Symbol == "" || c.Part > 1 || !callable[c.Kind] || e.fam == "go" && c.Kind != "function" && c.Kind != "method" {
			continue
		}
		t := names[c.Symbol]
		if t == nil {
			t = &targetName{}
			names[c.Symbol] = t
		}
		if c.Kind == "method" && len(c.Parents) > 0 {
			t.method = true
		} else {
			t.function = true
		}
	}
	return names
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
		for _, p := range e.w.dirs[e.dir()] {
			if path.Ext(p) == ext {
				add(callerFile{path: p, samePkg: true})
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

type scanned struct {
	text  []byte
	sites []site
	err   error
}

// scanCallers reads the candidate files (sequentially, as bbolt wants)
// and lexes them in parallel, keeping the sites that may call names.
func (e *expander) scanCallers(files []callerFile, names map[string]*targetName) []scanned {
	raws := make([][]byte, len(files))
	for i, f := range files {
		raws[i] = e.tx.RawBlob(f.path)
	}
	pkg := goPackageClause(e.text)
	sx := syntaxOf(e.fam)
	found := make([]scanned, len(files))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			i := w
			// The raw texts point into the mapped file: a fault there
			// must not take the process down.
			if err := e.tx.Guard(func() error {
				for ; i < len(files); i += workers {
					e.scanCaller(files[i], raws[i], pkg, sx, names, &found[i])
				}
				return nil
			}); err != nil && i < len(files) {
				found[i].err = err
			}
		}(w)
	}
	wg.Wait()
	return found
}

// scanCaller lexes one candidate file's raw text into out.
func (e *expander) scanCaller(f callerFile, raw []byte, pkg string, sx syntax, names map[string]*targetName, out *scanned) {
	if raw == nil {
		return
	}
	text, err := store.DecodeBlob(raw)
	if err != nil {
		out.err = err
		return
	}
	qual := pkg
	if e.fam == "go" && f.spec != "" {
		if alias := goAliases(text)[f.spec]; alias != "" {
			qual = alias
		}
	}
	scanSites(text, 0, sx, func(s site) {
		if e.callerMatch(s, f, qual, names) {
			out.sites = append(out.sites, s)
		}
	})
	if len(out.sites) > 0 {
		out.text = text
	}
}

// callerMatch decides from the site alone whether it may call a target
// name in file f; qual is how f names the target's Go package.
func (e *expander) callerMatch(s site, f callerFile, qual string, names map[string]*targetName) bool {
	t := names[s.name]
	if t == nil || s.def || s.deco || f.path == e.path && e.overlaps(s.off, s.off+1) {
		return false
	}
	switch e.fam {
	case "go":
		switch {
		case !goExported(s.name) && !f.samePkg:
			return false // only its package sees it
		case s.qualified && s.qual == qual && !f.samePkg:
			return t.function
		case s.qualified:
			return t.method
		}
		return t.function && (f.samePkg || qual == ".")
	case "python", "js":
		return s.qualified || t.function
	}
	return true
}

// callerRefs turns one file's matching sites into one ref per calling
// chunk and name, dropping definitions.
func (e *expander) callerRefs(p string, text []byte, chunks []store.Chunk, sites []site) []Ref {
	sx := syntaxOf(e.fam)
	lines := lineIndex(text)
	type key struct{ chunk, name string }
	seen := map[key]bool{}
	var out []Ref
	for _, s := range sites {
		if isDef(text, chunks, s, sx) || inSignatures(chunks, s.off) {
			continue
		}
		r := Ref{Path: p, Line: lineAt(lines, s.off), Name: s.name, Text: search.LineAt(text, s.off)}
		if c := chunkAt(chunks, s.off); c >= 0 {
			ch := chunks[c]
			r.ChunkID, r.Symbol, r.Kind, r.StartLine, r.EndLine = ch.ID, qualifiedName(ch), ch.Kind, ch.StartLine, ch.EndLine
		}
		k := key{r.ChunkID, s.name}
		if r.ChunkID == "" {
			k.chunk = p + ":" + strconv.Itoa(r.Line)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	return out
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

var goPackageRe = regexp.MustCompile(`(?m)^package[ \t]+([\p{L}_][\p{L}\p{N}_]*)`)

// goPackageClause is the package name a Go file declares, or "".
func goPackageClause(text []byte) string {
	if m := goPackageRe.FindSubmatch(text); m != nil {
		return string(m[1])
	}
	return ""
}
