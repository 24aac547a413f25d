package related

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/store"
)

const (
	// maxPerName is how many equally close definitions one called name
	// may resolve to; more make the name ambiguous and it is skipped.
	maxPerName = 3
	// ambiguousDefs is how many definitions in the workspace make a name
	// too common to search callers of when a target defines several names
	// (String, Error, Close ...).
	ambiguousDefs = 12
)

// callable are the symbol kinds "name(" can invoke: functions, methods and
// the constructors or conversions of types.
var callable = map[string]bool{"function": true, "method": true, "class": true, "struct": true, "type": true, "record": true}

// lookup returns the callable definitions of name (exact case) in the
// target's language family.
func (e *expander) lookup(name string) ([]store.Symbol, error) {
	if syms, ok := e.syms[name]; ok {
		return syms, nil
	}
	var out []store.Symbol
	err := e.tx.SymbolsWithPrefix(strings.ToLower(name)+"\x00", func(s store.Symbol) bool {
		if s.Name == name && callable[s.Kind] && familyOf(s.Path) == e.fam {
			out = append(out, s)
		}
		return true
	})
	e.syms[name] = out
	return out, err
}

// tier ranks a definition's place relative to the target: the same file,
// the same directory (package), a file the target imports, elsewhere.
func (e *expander) tier(p string) int {
	switch {
	case p == e.path:
		return 0
	case path.Dir(p) == e.dir():
		return 1
	case e.imported[p] || e.imported[path.Dir(p)+"/"]:
		return 2
	}
	return 3
}

// resolveCall picks the definitions a call site most likely means: for Go
// the qualifier decides between a package's functions, methods, and the
// target's own package; then the closest tier wins, then the most shared
// directories. Nil with ambiguous set when too many remain.
func (e *expander) resolveCall(s site) (defs []store.Symbol, ambiguous bool, err error) {
	cands, err := e.lookup(s.name)
	if err != nil || len(cands) == 0 {
		return nil, false, err
	}
	cands = slices.Clone(cands) // the lookup cache keeps the original
	if !lang.IsTestPath(e.path) {
		// Production code does not call into tests.
		cands = slices.DeleteFunc(cands, func(c store.Symbol) bool { return lang.IsTestPath(c.Path) })
	}
	if e.fam == "go" {
		dir, isPkg := e.goQuals[s.qual]
		cands = slices.DeleteFunc(cands, func(c store.Symbol) bool {
			if !goExported(s.name) && path.Dir(c.Path) != e.dir() {
				return true // only its package sees it
			}
			switch {
			case s.qualified && isPkg:
				return c.Parent != "" || path.Dir(c.Path) != dir
			case s.qualified:
				return c.Parent == ""
			default:
				return c.Parent != "" || path.Dir(c.Path) != e.dir()
			}
		})
	}
	if len(cands) == 0 {
		return nil, false, nil
	}
	best := 4
	for _, c := range cands {
		best = min(best, e.tier(c.Path))
	}
	var kept []store.Symbol
	bestShared := -1
	for _, c := range cands {
		if e.tier(c.Path) != best {
			continue
		}
		switch sh := sharedDirs(c.Path, e.path); {
		case sh > bestShared:
			kept, bestShared = []store.Symbol{c}, sh
		case sh == bestShared:
			kept = append(kept, c)
		}
	}
	inside := 0
	for _, c := range kept {
		if c.Path == e.path && e.inTarget(e.chunkBytes(c.ChunkID)) {
			inside++
		}
	}
	switch {
	case inside == len(kept):
		return nil, false, nil // the selection defines it: not a dependency
	case len(kept) > maxPerName:
		return nil, true, nil
	}
	slices.SortFunc(kept, func(a, b store.Symbol) int { return cmp.Or(strings.Compare(a.Path, b.Path), a.Line-b.Line) })
	return kept, false, nil
}

// callees finds the calls in the selection and the definitions they
// resolve to outside it, in the order of their first call.
func (e *expander) callees() ([]Ref, error) {
	sx := syntaxOf(e.fam)
	var sites []site
	for _, sp := range e.spans {
		scanSites(e.text[sp.start:sp.end], sp.start, sx, func(s site) { sites = append(sites, s) })
	}
	type key struct {
		name, qual string
		qualified  bool
	}
	done := map[key]bool{}
	seen := map[string]bool{}
	var ambiguous []string
	var out []Ref
	for _, s := range sites {
		k := key{s.name, s.qual, s.qualified}
		if s.def || s.deco || !s.qualified && isBuiltin(e.fam, s.name) || done[k] || isDef(e.text, e.chunks, s, sx) || inSignatures(e.chunks, s.off) {
			continue
		}
		done[k] = true
		defs, amb, err := e.resolveCall(s)
		if err != nil {
			return nil, err
		}
		if amb {
			ambiguous = appendNonEmpty(ambiguous, s.name)
		}
		for _, d := range defs {
			if seen[d.ChunkID] {
				continue
			}
			seen[d.ChunkID] = true
			if d.Path == e.path && e.inTarget(e.chunkBytes(d.ChunkID)) {
				continue
			}
			sym := d.Name
			if d.Parent != "" {
				sym = d.Parent + "." + d.Name
			}
			out = append(out, Ref{Path: d.Path, Line: d.Line, ChunkID: d.ChunkID, Symbol: sym, Kind: d.Kind,
				Name: s.name, CallLine: e.lineOf(s.off)})
		}
	}
	if len(ambiguous) > 0 {
		e.notes = append(e.notes, "callees skipped as ambiguous (more than 3 equally close definitions): "+listNames(ambiguous))
	}
	return e.capRefs("callees", out), nil
}

// chunkBytes is the byte range of one of the target file's chunks.
func (e *expander) chunkBytes(id string) (int, int) {
	for _, c := range e.chunks {
		if c.ID == id {
			return c.StartByte, c.EndByte
		}
	}
	return -1, -1
}

// isDef reports whether a call-like site is in fact the name of the
// definition that starts its chunk: the chunk is named s.name and no
// other call comes before it (a C function, a Java or JS method, a Python
// class with bases). Decorators before a definition do not count.
func isDef(text []byte, chunks []store.Chunk, s site, sx syntax) bool {
	c := chunkAt(chunks, s.off)
	if c < 0 || chunks[c].Symbol != s.name {
		return false
	}
	start := chunks[c].StartByte
	earlier := false
	scanSites(text[start:s.off], start, sx, func(x site) { earlier = earlier || !x.deco })
	return !earlier
}

// inSignatures reports whether off lies in an interface or trait, whose
// method signatures look like calls ("Header() Header").
func inSignatures(chunks []store.Chunk, off int) bool {
	c := chunkAt(chunks, off)
	return c >= 0 && (chunks[c].Kind == "interface" || chunks[c].Kind == "trait")
}

// chunkAt is the smallest chunk holding byte off, or -1.
func chunkAt(chunks []store.Chunk, off int) int {
	best := -1
	for i, c := range chunks {
		if off < c.StartByte || off >= c.EndByte {
			continue
		}
		if best < 0 || c.EndByte-c.StartByte < chunks[best].EndByte-chunks[best].StartByte {
			best = i
		}
	}
	return best
}

func listNames(names []string) string {
	slices.Sort(names)
	if len(names) > 12 {
		return strings.Join(names[:12], ", ") + fmt.Sprintf(" and %d more", len(names)-12)
	}
	return strings.Join(names, ", ")
}
