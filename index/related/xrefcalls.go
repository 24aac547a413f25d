package related

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"path"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/xref"
	"github.com/dossierhq/dossier/store"
)

// calleeKinds are the definitions a call can reach: functions, methods,
// and types (a constructor's class, new T; in Go a conversion or a
// composite literal, which xcallees lists apart). A call through a field
// or variable of function type is dynamic: no callee.
var calleeKinds = map[string]bool{"function": true, "method": true, "constructor": true}

func isCallee(d *xref.Def) bool { return calleeKinds[d.Kind] || typeKinds[d.Kind] }

// xcallees resolves the calls the selection makes through the target
// language's scoping rules, in the order of their first call. In Go a
// "call" of a type is a conversion or a composite literal, which runs no
// code of the type: those are constructs, not callees.
func (e *expander) xcallees() (callees, constructs []Ref, err error) {
	type key struct {
		path  string
		start int
	}
	seen := map[key]bool{}
	var ambiguous []string
	test := lang.IsTestPath(e.path)
	for _, ref := range e.xp.x.Refs {
		if !ref.Call || !e.inTarget(ref.Start, ref.Start+1) {
			continue
		}
		hits, guess := e.r.resolve(e.xp, ref)
		hits = slices.DeleteFunc(hits, func(h hit) bool {
			return !isCallee(h.def()) || jsUncallable(h) || !test && lang.IsTestPath(h.p.path)
		})
		if guess && len(hits) > maxPerName {
			ambiguous = appendNonEmpty(ambiguous, ref.Name)
			continue
		}
		for _, h := range hits {
			d := h.def()
			if h.p.path == e.path && e.inTarget(d.NameStart, d.NameStart+1) {
				continue // the selection defines it: not a dependency
			}
			k := key{h.p.path, d.NameStart}
			if seen[k] {
				continue
			}
			seen[k] = true
			r, err := e.defRef(h)
			if err != nil {
				return nil, nil, err
			}
			r.Name, r.CallLine, r.Guess = ref.Name, e.lineOf(ref.Start), guess
			if e.fam == "go" && typeKinds[d.Kind] {
				constructs = append(constructs, r)
			} else {
				callees = append(callees, r)
			}
		}
	}
	if len(ambiguous) > 0 {
		e.notes = append(e.notes, "callees skipped as ambiguous (more than 3 definitions and no import or type to choose): "+listNames(ambiguous))
	}
	return e.capRefs("callees", callees), e.capRefs("constructs", constructs), nil
}

// defRef is the ref of a definition: its line and the chunk holding it.
func (e *expander) defRef(h hit) (Ref, error) {
	d := h.def()
	sym := d.Name
	if d.Container != "" {
		sym = d.Container + "." + d.Name
	}
	r := Ref{Path: h.p.path, Line: h.line(), Symbol: sym, Kind: d.Kind, Build: h.p.buildLabel()}
	chunks, err := e.chunksOf(h.p.path)
	if err != nil {
		return r, err
	}
	if c := chunkAt(chunks, d.NameStart); c >= 0 {
		r.ChunkID = chunks[c].ID
		if chunks[c].Symbol == d.Name {
			r.Line = chunks[c].StartLine // the symbol map's line, doc comment included
		}
	}
	return r, nil
}

// chunksOf are the chunks of a file, read once per expansion.
func (e *expander) chunksOf(p string) ([]store.Chunk, error) {
	if p == e.path {
		return e.chunks, nil
	}
	if c, ok := e.chunkCache[p]; ok {
		return c, nil
	}
	c, err := e.tx.FileChunks(p)
	if err == nil {
		e.chunkCache[p] = c
	}
	return c, err
}

// xtargets are the definitions the selection makes that calls can reach,
// by name: for a whole file all of them, else those whose name lies in it.
func (e *expander) xtargets() map[string][]int {
	out := map[string][]int{}
	for i, d := range e.xp.x.Defs {
		if !calleeKinds[d.Kind] && (e.fam == "go" || !typeKinds[d.Kind]) {
			continue
		}
		if e.whole || e.inTarget(d.NameStart, d.NameStart+1) {
			out[d.Name] = append(out[d.Name], i)
		}
	}
	return out
}

// xcallers finds the calls, in the files that can see the selection,
// that resolve to a definition it makes.
func (e *expander) xcallers(imps []importer) ([]Ref, error) {
	targets := e.xtargets()
	if len(targets) > 3 {
		var common []string
		for _, n := range slices.Sorted(maps.Keys(targets)) {
			defs, err := e.lookup(n)
			if err != nil {
				return nil, err
			}
			if len(defs) > ambiguousDefs {
				common = append(common, n)
				delete(targets, n)
			}
		}
		if len(common) > 0 {
			e.notes = append(e.notes, "callers not searched for names defined more than 12 times (select one symbol to search them): "+listNames(common))
		}
	}
	if len(targets) == 0 {
		return []Ref{}, nil
	}
	isTarget := map[int]bool{}
	for _, is := range targets {
		for _, i := range is {
			isTarget[e.xp.x.Defs[i].NameStart] = true
		}
	}
	imps, err := e.jsBarrelImporters(imps, targets) // js.go
	if err != nil {
		return nil, err
	}
	var paths []string
	seen := map[string]bool{}
	for _, f := range e.callerFiles(imps) {
		paths = append(paths, f.path)
		seen[f.path] = true
	}
	if e.fam == "go" && e.hasMethod(targets) {
		// A method is called through values whose type a file need not
		// import: every file of an importer's package may call it.
		for _, imp := range imps {
			for _, p := range e.w.dirs[path.Dir(imp.path)] {
				if !seen[p] && strings.HasSuffix(p, ".go") {
					seen[p] = true
					paths = append(paths, p)
				}
			}
		}
	}
	// Files in the order of the list, searched a batch at a time, so that
	// a list that reaches its limit stops the search: the rest could only
	// come after it.
	slices.SortStableFunc(paths, func(a, b string) int {
		return cmp.Or(e.callerTier(a)-e.callerTier(b), strings.Compare(a, b))
	})
	names := slices.Collect(maps.Keys(targets))
	batch := 8 * runtime.GOMAXPROCS(0)
	var out []Ref
	for start := 0; start < len(paths); start += batch {
		if len(out) > e.limit {
			e.notes = append(e.notes, fmt.Sprintf("callers: the list reached its limit (%d) with %d of %d candidate files searched; raise the limit to search the rest", e.limit, start, len(paths)))
			break
		}
		files, err := e.parseCandidates(paths[start:min(start+batch, len(paths))], names)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			refs, err := e.callersIn(f, targets, isTarget)
			if err != nil {
				return nil, err
			}
			out = append(out, refs...)
		}
	}
	slices.SortFunc(out, func(a, b Ref) int {
		return cmp.Or(e.callerTier(a.Path)-e.callerTier(b.Path), strings.Compare(a.Path, b.Path), a.Line-b.Line, strings.Compare(a.Name, b.Name))
	})
	return e.capRefs("callers", out), nil
}

// hasMethod reports whether one of the target definitions is a method.
func (e *expander) hasMethod(targets map[string][]int) bool {
	for _, is := range targets {
		for _, i := range is {
			if e.xp.x.Defs[i].Container != "" {
				return true
			}
		}
	}
	return false
}

// callersIn lists the chunks of f whose calls resolve to a target
// definition (isTarget holds their name offsets in the target file), one
// ref per chunk and name.
func (e *expander) callersIn(f *parsed, targets map[string][]int, isTarget map[int]bool) ([]Ref, error) {
	type key struct {
		chunk string
		line  int
		name  string
	}
	seen := map[key]bool{}
	// A name imported under another (import {format as fmt}, from m
	// import helper as h, use A\B as C) is called by its alias.
	aliases := map[string]bool{}
	for _, imp := range f.x.Imports {
		if imp.Member != "" && imp.Local != imp.Member && targets[imp.Member] != nil {
			aliases[imp.Local] = true
		}
	}
	var chunks []store.Chunk
	var out []Ref
	for _, ref := range f.x.Refs {
		if !ref.Call || targets[ref.Name] == nil && !aliases[ref.Name] || f.path == e.path && e.overlaps(ref.Start, ref.Start+1) {
			continue
		}
		hits, guess := e.r.resolve(f, ref)
		if !slices.ContainsFunc(hits, func(h hit) bool { return h.p.path == e.path && isTarget[h.def().NameStart] }) {
			continue
		}
		if chunks == nil {
			var err error
			if chunks, err = e.chunksOf(f.path); err != nil {
				return nil, err
			}
		}
		if f.lines == nil {
			f.lines = lineIndex(f.text)
		}
		r := Ref{Path: f.path, Line: lineAt(f.lines, ref.Start), Name: ref.Name, Text: search.LineAt(f.text, ref.Start),
			Guess: guess, Build: f.buildLabel()}
		k := key{line: r.Line, name: ref.Name}
		if c := chunkAt(chunks, ref.Start); c >= 0 {
			ch := chunks[c]
			r.ChunkID, r.Symbol, r.Kind, r.StartLine, r.EndLine = ch.ID, qualifiedName(ch), ch.Kind, ch.StartLine, ch.EndLine
			k = key{chunk: ch.ID, name: ref.Name}
		}
		if sym, kind := jsCallerSymbol(f, ref); sym != "" {
			r.Symbol, r.Kind, k.chunk = sym, kind, k.chunk+"\x00"+sym // js.go
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, r)
	}
	return out, nil
}

// parseCandidates reads the candidate files (sequentially, as bbolt
// wants) and parses in parallel those whose text holds one of names; the
// target file is the one already parsed.
func (e *expander) parseCandidates(paths, names []string) ([]*parsed, error) {
	raws := make([][]byte, len(paths))
	found := make([]*parsed, len(paths))
	for i, p := range paths {
		if f, ok := e.r.files[p]; ok {
			found[i] = f // read already: parsed below with the others
			continue
		}
		raws[i] = e.tx.RawBlob(p)
	}
	errs := make([]error, len(paths))
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
				for ; i < len(paths); i += workers {
					if f := found[i]; f != nil {
						if holdsCall(f.text, names, paths[i]) {
							f.parse() // each file is in one batch: no other goroutine has it
						}
						continue
					}
					if raws[i] == nil {
						continue
					}
					text, err := store.DecodeBlob(raws[i])
					if err != nil {
						errs[i] = fmt.Errorf("text of %s: %w", paths[i], err)
						continue
					}
					f := &parsed{path: paths[i], lang: lang.Detect(paths[i], text), text: text}
					if holdsCall(text, names, paths[i]) {
						f.parse()
					}
					found[i] = f
				}
				return nil
			}); err != nil && i < len(paths) {
				errs[i] = err
			}
		}(w)
	}
	wg.Wait()
	var out []*parsed
	for i, p := range paths {
		if errs[i] != nil {
			return nil, errs[i]
		}
		f := found[i]
		if _, ok := e.r.files[p]; !ok && f != nil {
			e.r.files[p] = f
		}
		if f != nil && f.x != nil && holdsCall(f.text, names, p) {
			out = append(out, f)
		}
	}
	return out, nil
}

// holdsCall reports whether text may call one of names: it holds the
// name, and in Go followed by "(" or "[" (F[T](x)), as every call is.
func holdsCall(text []byte, names []string, p string) bool {
	goCall := strings.HasSuffix(p, ".go")
	for _, n := range names {
		if !goCall {
			if bytes.Contains(text, []byte(n)) {
				return true
			}
			continue
		}
		if bytes.Contains(text, []byte(n+"(")) || bytes.Contains(text, []byte(n+"[")) {
			return true
		}
	}
	return false
}
