// Package related expands a file, a span of it or a symbol into what it
// depends on and what depends on it (seed 004's dependency expansion, the
// "/refactor" retrieval): its imports resolved to workspace files, the files
// that import it, its tests, and its callees and callers.
//
// Everything is read from one store transaction; nothing is written. Calls
// are the references index/xref reads from a tree-sitter parse, resolved
// through the scoping table (scoping.go): the receiver's declared type,
// import bindings, the package, and only where the language has a global
// namespace a unique global name, marked as a guess. A language without a
// reference extractor (one indexed as text) has no callees or callers, and
// a note says so.
//
// A call reaches what runs: a Java type's constructors, and of several
// overloads those taking the call's argument count; of those, the ones the
// arguments' types choose where the syntax shows them without a type
// checker (literals, new T(), casts, this, locals, parameters and fields
// with a declared type; java_overloads.go). Where it does not (an argument
// that is a call's result, an undeclared expression), every overload of
// that arity is listed: a caller list may then hold calls of a sibling
// overload, never lose one. Python reaches a package's submodules through
// its attributes (import pkg.sub, then pkg.sub.client.Client()).
package related

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/dossierhq/dossier/store"
)

// NoResolverNote starts the note of an expansion whose target's language
// has no reference extractor: its callers and callees are empty, not
// searched.
const NoResolverNote = "no callees or callers: dossier has no reference extractor for "

// DefaultLimit bounds each list of an expansion.
const DefaultLimit = 50

// Options tune Expand.
type Options struct {
	// Limit caps each list (importers, tests, callees, callers); the rest is
	// counted in Expansion.Omitted. DefaultLimit when 0.
	Limit int
}

// Expansion is the dependency expansion of a target. Lists are never nil
// and their order is deterministic.
type Expansion struct {
	Target    Selection `json:"target"`
	Imports   []Import  `json:"imports"`
	Importers []Ref     `json:"importers"`
	Tests     []Ref     `json:"tests"`
	Callees   []Ref     `json:"callees"`
	// Constructs are the types a Go selection builds or converts to
	// (`sizeSpec{...}`, `EventType(x)`): no calls, so apart from Callees.
	Constructs []Ref `json:"constructs,omitempty"`
	Callers    []Ref `json:"callers"`
	// Omitted counts, per list, the results left out past the limit.
	Omitted map[string]int `json:"omitted,omitempty"`
	// Notes say what was skipped and why (ambiguous names).
	Notes []string `json:"notes,omitempty"`
}

// Selection is the target as resolved against the index.
type Selection struct {
	Path      string `json:"path"`
	Language  string `json:"language"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	WholeFile bool   `json:"whole_file"`
	Symbol    string `json:"symbol,omitempty"`
	// Chunks are the chunks a part of a file covers (empty for a whole file).
	Chunks []Ref `json:"chunks,omitempty"`
}

// Import is one import of the target file, resolved where the workspace
// has it.
type Import struct {
	Spec string `json:"spec"` // as written
	Line int    `json:"line,omitempty"`
	// Dir is the package directory of a Go import; Paths are then its
	// non-test files.
	Dir      string   `json:"dir,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	External bool     `json:"external"`
}

// Ref is one related place: a file, or a chunk and a line in it.
type Ref struct {
	Path string `json:"path"`
	// Line is the definition (callees), the call (callers), the import
	// statement (importers), or 1 for a whole file (tests).
	Line      int    `json:"line"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	ChunkID   string `json:"chunk_id,omitempty"`
	Symbol    string `json:"symbol,omitempty"` // Parent.Name for methods
	Kind      string `json:"kind,omitempty"`
	// Name is the name called (callees, callers) or the import spec
	// (importers).
	Name string `json:"name,omitempty"`
	// CallLine is the target's line that first calls a callee.
	CallLine int    `json:"call_line,omitempty"`
	Role     string `json:"role,omitempty"` // tests: "test" or "subject"
	Text     string `json:"text,omitempty"` // callers: the calling line, trimmed
	// Guess marks a callee or caller found by a unique global name alone
	// (a language with a global namespace, C without the header), not
	// through the scoping rules.
	Guess bool `json:"guess,omitempty"`
	// Build is the build constraint of the Go file holding a callee's
	// definition or a caller's call ("windows", "linux && amd64", a
	// //go:build line's expression), "" when it builds everywhere: a
	// function defined once per platform is listed once per variant.
	Build string `json:"build,omitempty"`
}

type span struct{ start, end int }

// expander holds one expansion's state.
type expander struct {
	tx     *store.Tx
	w      *workspace
	path   string
	fam    string
	text   []byte
	lines  []int // offset of each line start
	chunks []store.Chunk
	spans  []span // merged, in order
	whole  bool
	sel    Selection
	limit  int

	imported map[string]bool   // files the target's imports resolve to
	goQuals  map[string]string // Go: package name or alias -> directory
	syms     map[string][]store.Symbol
	omitted  map[string]int
	notes    []string
	pyInit   map[string]bool // Python: module -> it re-exports the target module's names
	pyTop    string          // Python: the target's top package directory (inPyPackage)

	// r resolves references where the target's language has an xref
	// extractor; xp is the target file as it reads it (nil otherwise:
	// the lexical path).
	r          *resolver
	xp         *parsed
	chunkCache map[string][]store.Chunk
}

// Expand computes the dependency expansion of t. The target file must be
// in the index (ErrNotIndexed); a range must start inside it (ErrPastEOF);
// a symbol must name a chunk of it (ErrNoSymbol).
func Expand(tx *store.Tx, t Target, opts Options) (*Expansion, error) {
	e, err := newExpander(tx, t, opts)
	if err != nil {
		return nil, err
	}
	x := &Expansion{Target: e.sel}
	x.Imports, err = e.imports()
	if err != nil {
		return nil, err
	}
	importers, err := e.importers()
	if err != nil {
		return nil, err
	}
	if x.Importers, err = e.importerRefs(importers); err != nil {
		return nil, err
	}
	x.Tests = e.tests()
	x.Callees, x.Callers = []Ref{}, []Ref{}
	if e.xp != nil {
		if x.Callees, x.Constructs, err = e.xcallees(); err != nil {
			return nil, err
		}
		if x.Callers, err = e.xcallers(importers); err != nil {
			return nil, err
		}
	} else {
		e.notes = append(e.notes, NoResolverNote+e.sel.Language)
	}
	if len(e.omitted) > 0 {
		x.Omitted = e.omitted
	}
	x.Notes = e.notes
	return x, nil
}

func newExpander(tx *store.Tx, t Target, opts Options) (*expander, error) {
	f, ok, err := tx.File(t.Path)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%s: %w", t.Path, ErrNotIndexed)
	}
	text, ok := tx.Blob(t.Path)
	if !ok {
		return nil, fmt.Errorf("%s: its text is missing from the index: run `dossier index` again", t.Path)
	}
	chunks, err := tx.FileChunks(t.Path)
	if err != nil {
		return nil, err
	}
	e := &expander{tx: tx, path: t.Path, fam: family(f.Language), text: text, lines: lineIndex(text),
		chunks: chunks, limit: opts.Limit, imported: map[string]bool{}, goQuals: map[string]string{},
		syms: map[string][]store.Symbol{}, omitted: map[string]int{}}
	if e.limit <= 0 {
		e.limit = DefaultLimit
	}
	if err := e.selectSpans(t); err != nil {
		return nil, err
	}
	e.sel = Selection{Path: t.Path, Language: f.Language, WholeFile: e.whole, Symbol: t.Symbol,
		StartLine: e.lineOf(e.spans[0].start), EndLine: e.lineOf(max(e.spans[len(e.spans)-1].end-1, 0))}
	if !e.whole {
		for _, c := range e.covered() {
			e.sel.Chunks = append(e.sel.Chunks, chunkRef(c))
		}
	}
	e.w = newWorkspace(tx)
	e.r = newResolver(tx, e.w)
	e.chunkCache = map[string][]store.Chunk{}
	if _, ok := scopingOf(f.Language); ok {
		xp := &parsed{path: t.Path, lang: f.Language, text: text}
		if xp.parse() != nil {
			e.r.files[t.Path] = xp
			e.xp = xp
		}
	}
	return e, nil
}

// selectSpans turns the target into byte spans of the file.
func (e *expander) selectSpans(t Target) error {
	n, nlines := len(e.text), len(e.lines)
	if n == 0 {
		nlines = 0
	}
	switch {
	case t.Symbol != "":
		var names []string
		var exact, byName []span
		for _, c := range e.chunks {
			if c.Symbol == "" {
				continue
			}
			switch {
			case qualifiedName(c) == t.Symbol:
				exact = append(exact, span{c.StartByte, c.EndByte})
			case c.Symbol == t.Symbol:
				byName = append(byName, span{c.StartByte, c.EndByte})
			}
			names = appendNonEmpty(names, qualifiedName(c))
		}
		// "f" is the function f when there is one, not also the methods
		// named f; with none, it is every method of that name.
		e.spans = exact
		if len(exact) == 0 {
			e.spans = byName
		}
		if len(e.spans) == 0 { // not a unit of its own: a constant, field or property function
			members, err := e.tx.SpanSymbols(t.Path, t.Symbol)
			if err != nil {
				return err
			}
			for _, s := range members {
				e.spans = append(e.spans, span{s.StartByte, s.EndByte})
			}
		}
		if len(e.spans) == 0 {
			e.spans = e.xrefSpans(t.Symbol) // xrefdefs.go
		}
		if len(e.spans) == 0 {
			if len(names) > 8 {
				names = append(names[:8], "…")
			}
			return fmt.Errorf("%w: %q in %s (it has: %s)", ErrNoSymbol, t.Symbol, t.Path, strings.Join(names, ", "))
		}
	case t.Bytes:
		if t.Start >= n && n > 0 || t.Start > n {
			return fmt.Errorf("%w: byte %d of %s, which has %d bytes", ErrPastEOF, t.Start, t.Path, n)
		}
		end := t.End
		if end == 0 || end > n {
			end = n
		}
		e.spans = []span{{t.Start, max(end, t.Start)}}
	case t.Start > 0:
		if t.Start > nlines {
			return fmt.Errorf("%w: line %d of %s, which has %d lines", ErrPastEOF, t.Start, t.Path, nlines)
		}
		end := n
		if t.End > 0 && t.End < nlines {
			end = e.lines[t.End]
		}
		e.spans = []span{{e.lines[t.Start-1], end}}
	default:
		e.whole = true
		e.spans = []span{{0, n}}
	}
	sort.Slice(e.spans, func(i, j int) bool { return e.spans[i].start < e.spans[j].start })
	merged := e.spans[:1]
	for _, s := range e.spans[1:] {
		if last := &merged[len(merged)-1]; s.start <= last.end {
			last.end = max(last.end, s.end)
		} else {
			merged = append(merged, s)
		}
	}
	e.spans = merged
	return nil
}

// inTarget reports whether the byte range [start, end) of the target file
// lies inside the selection.
func (e *expander) inTarget(start, end int) bool {
	for _, s := range e.spans {
		if start >= s.start && end <= s.end {
			return true
		}
	}
	return false
}

// overlaps reports whether [start, end) touches the selection.
func (e *expander) overlaps(start, end int) bool {
	for _, s := range e.spans {
		if start < s.end && end > s.start {
			return true
		}
	}
	return false
}

// covered lists the chunks the selection touches, leaving out outlines of
// types that only contain it (a class around a selected method).
func (e *expander) covered() []store.Chunk {
	var out []store.Chunk
	for _, c := range e.chunks {
		if !e.overlaps(c.StartByte, c.EndByte) {
			continue
		}
		if c.Outline != "" && !e.inTarget(c.StartByte, c.EndByte) {
			continue
		}
		out = append(out, c)
	}
	return out
}

func (e *expander) lineOf(off int) int { return lineAt(e.lines, off) }

// lineIndex lists the byte offset where each line starts.
func lineIndex(text []byte) []int {
	lines := []int{0}
	for i, c := range text {
		if c == '\n' && i+1 < len(text) {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// lineAt is the 1-based line holding byte off.
func lineAt(lines []int, off int) int {
	return sort.Search(len(lines), func(i int) bool { return lines[i] > off })
}

func qualifiedName(c store.Chunk) string {
	if len(c.Parents) == 0 {
		return c.Symbol
	}
	return strings.Join(c.Parents, ".") + "." + c.Symbol
}

func chunkRef(c store.Chunk) Ref {
	return Ref{Path: c.Path, Line: c.StartLine, StartLine: c.StartLine, EndLine: c.EndLine, ChunkID: c.ID,
		Symbol: qualifiedName(c), Kind: c.Kind}
}

// capRefs keeps the first limit refs of list and counts the rest.
func (e *expander) capRefs(list string, refs []Ref) []Ref {
	if len(refs) > e.limit {
		e.omitted[list] = len(refs) - e.limit
		refs = refs[:e.limit]
	}
	if refs == nil {
		refs = []Ref{}
	}
	return refs
}

// tests lists the files TestLinks pairs with the target, both ways.
func (e *expander) tests() []Ref {
	links := e.tx.TestLinks(e.path)
	var out []Ref
	for _, p := range slices.Sorted(maps.Keys(links)) {
		out = append(out, Ref{Path: p, Line: 1, Role: links[p]})
	}
	return e.capRefs("tests", out)
}

func (e *expander) dir() string { return path.Dir(e.path) }
