package evidence

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/related"
	"github.com/dossierhq/dossier/store"
)

// gatherer turns an expansion into the spans a recipe adds.
type gatherer struct {
	tx    *store.Tx
	x     *related.Expansion
	plan  gatherPlan
	whole bool
	limit int

	targetText string          // the selection's text
	fileLines  []string        // the target file's lines
	idents     map[string]bool // the identifiers it uses
	defined    []string        // the names it defines
	seen       map[string]bool // selectors already listed
}

// items lists what the recipe adds after the target, in order: each
// relation as the spans of its symbols. A whole file comes in only with
// --whole, and never the target's own file.
func (g *gatherer) items() ([]gatherItem, []string, error) {
	if err := g.readTarget(); err != nil {
		return nil, nil, err
	}
	g.seen = map[string]bool{}
	var out []gatherItem
	var notes []string
	add := func(band, why string, path string, start, end int) {
		if path == g.x.Target.Path && (start == 0 || g.inTarget(start, end)) {
			return // the target's own file is in the flow already
		}
		s := path
		if start > 0 {
			s = fmt.Sprintf("%s::%d,%d", path, start, end)
		}
		if !g.seen[s] {
			g.seen[s] = true
			out = append(out, gatherItem{sel: s, band: band, why: why})
		}
	}
	// addSymbol adds path::@sym, whose lines are start-end today: the
	// same span, named and re-found by its symbol.
	addSymbol := func(band, why, path, sym string, start, end int) {
		if path == g.x.Target.Path && g.inTarget(start, end) {
			return
		}
		lines := fmt.Sprintf("%s::%d,%d", path, start, end)
		s := path + "::@" + sym
		if !g.seen[s] && !g.seen[lines] {
			g.seen[s], g.seen[lines] = true, true
			out = append(out, gatherItem{sel: s, band: band, why: why})
		}
	}
	spans := func(band, why string, path string, chunks []store.Chunk) {
		all, _ := g.tx.FileChunks(path)
		for _, ch := range chunks {
			if sym := selectorSymbol(ch, all); sym != "" {
				addSymbol(band, why, path, sym, ch.StartLine, ch.EndLine)
			} else {
				add(band, why, path, ch.StartLine, ch.EndLine)
			}
		}
	}
	if b := g.plan.imports; b != "" {
		left := 0
		for _, imp := range g.x.Imports {
			for _, p := range imp.Paths {
				if g.whole {
					add(b, "import", p, 0, 0)
					continue
				}
				named, err := g.namedIn(p, g.importNames(imp))
				if err != nil {
					return nil, nil, err
				}
				if len(named) == 0 {
					left++
				}
				spans(b, "import", p, named)
			}
		}
		if left > 0 {
			notes = append(notes, fmt.Sprintf("%d imported file(s) left out: the target names none of their symbols (--whole adds them whole)", left))
		}
	}
	if b := g.plan.tests; b != "" {
		if err := g.tests(b, add, addSymbol, spans, &notes); err != nil {
			return nil, nil, err
		}
	}
	if b := g.plan.importers; b != "" {
		if err := g.naming(b, "importer", g.x.Importers, add, spans, &notes); err != nil {
			return nil, nil, err
		}
	}
	for _, rel := range []struct {
		band, why string
		refs      []related.Ref
	}{{g.plan.callers, "caller", g.x.Callers}, {g.plan.callees, "callee", g.x.Callees}} {
		if rel.band == "" {
			continue
		}
		for _, r := range rel.refs {
			// A callee or caller is its symbol's chunk; without one (an
			// unindexed span) it is left out rather than taken whole.
			if err := g.addRef(rel.band, rel.why, r, add, addSymbol); err != nil {
				return nil, nil, err
			}
		}
	}
	return out, notes, nil
}

// addRef adds a callee's or caller's chunk: by its symbol when the ref
// names the chunk's symbol (so the part is named and re-found by it), by
// its lines otherwise. Without a chunk (an unindexed span) it is left
// out rather than taken whole.
func (g *gatherer) addRef(band, why string, r related.Ref, add func(string, string, string, int, int), addSymbol func(string, string, string, string, int, int)) error {
	start, end, sym, err := g.refSpan(r)
	if err != nil || start == 0 {
		return err
	}
	if sym != "" {
		addSymbol(band, why, r.Path, sym, start, end)
		return nil
	}
	add(band, why, r.Path, start, end)
	return nil
}

// refSpan is the span of a ref's chunk: the one it names, or else the
// smallest holding its line; sym is the chunk's symbol as a selector
// names it ("Type.Method"), "" when the chunk has none or is one part of
// a split symbol.
func (g *gatherer) refSpan(r related.Ref) (start, end int, sym string, err error) {
	chunks, err := g.tx.FileChunks(r.Path)
	if err != nil {
		return 0, 0, "", err
	}
	var best *store.Chunk
	for i, ch := range chunks {
		if ch.Outline != "" {
			continue
		}
		switch {
		case r.ChunkID != "" && ch.ID == r.ChunkID,
			r.StartLine > 0 && ch.StartLine == r.StartLine && ch.EndLine == r.EndLine:
			best = &chunks[i]
		case r.StartLine == 0 && r.ChunkID == "" && ch.StartLine <= r.Line && r.Line <= ch.EndLine &&
			(best == nil || ch.EndLine-ch.StartLine < best.EndLine-best.StartLine):
			best = &chunks[i]
		default:
			continue
		}
		if r.ChunkID != "" || r.StartLine > 0 {
			break
		}
	}
	if best == nil {
		if r.StartLine > 0 {
			return r.StartLine, r.EndLine, "", nil
		}
		return 0, 0, "", nil
	}
	return best.StartLine, best.EndLine, selectorSymbol(*best, chunks), nil
}

// selectorSymbol is the name path::@Name selects c by ("Type.Method"), or
// "" when c has no symbol, is one part of a split symbol, or shares its
// name with another chunk of the file (lines then say which).
func selectorSymbol(c store.Chunk, chunks []store.Chunk) string {
	if c.Symbol == "" || c.Part > 1 || c.Parts > 1 {
		return ""
	}
	sym := qualified(c.Parents, c.Symbol)
	for _, ch := range chunks {
		if ch.ID != c.ID && ch.Symbol != "" && ch.Outline == "" && qualified(ch.Parents, ch.Symbol) == sym {
			return ""
		}
	}
	return sym
}

// tests adds the tests of the target: where its language resolves
// references, the test functions that call it (a comment naming it, or a
// call of another function of the same name, is no test of it); the
// subject of a test target; elsewhere, the test chunks whose code names
// what the target defines.
func (g *gatherer) tests(band string, add func(string, string, string, int, int), addSymbol func(string, string, string, string, int, int), spans func(string, string, string, []store.Chunk), notes *[]string) error {
	if !g.resolved() || g.whole {
		return g.naming(band, "test", g.x.Tests, add, spans, notes)
	}
	isTest := map[string]bool{}
	var subjects []related.Ref
	for _, r := range g.x.Tests {
		if r.Role == "subject" {
			subjects = append(subjects, r)
		} else {
			isTest[r.Path] = true
		}
	}
	n := 0
	for _, r := range g.x.Callers {
		if isTest[r.Path] && n < g.limit {
			n++
			if err := g.addRef(band, "test", r, add, addSymbol); err != nil {
				return err
			}
		}
	}
	if len(isTest) > 0 && n == 0 {
		*notes = append(*notes, fmt.Sprintf("%d test file(s) left out: no test in them calls the target (--whole adds them whole)", len(isTest)))
	}
	return g.naming(band, "test", subjects, add, spans, notes)
}

// resolved tells whether the expansion's callers come from resolved
// references (the target's language has a reference extractor).
func (g *gatherer) resolved() bool {
	return !slices.ContainsFunc(g.x.Notes, func(n string) bool { return strings.HasPrefix(n, related.NoResolverNote) })
}

// naming adds, for each file of refs (tests, importers), the chunks that
// name what the target defines: the test functions of the target, the
// code of an importer that uses it. A test's subject file (the target is
// a test) gives the chunks the target names instead.
func (g *gatherer) naming(band, why string, refs []related.Ref, add func(string, string, string, int, int), spans func(string, string, string, []store.Chunk), notes *[]string) error {
	left := 0
	for _, r := range refs {
		if g.whole {
			add(band, why, r.Path, 0, 0)
			continue
		}
		var chunks []store.Chunk
		var err error
		if r.Role == "subject" {
			chunks, err = g.namedIn(r.Path, g.idents)
		} else {
			chunks, err = g.namingTarget(r.Path)
		}
		if err != nil {
			return err
		}
		if len(chunks) == 0 {
			left++
		}
		spans(band, why, r.Path, chunks)
	}
	if left > 0 {
		*notes = append(*notes, fmt.Sprintf("%d %s file(s) left out: none of their symbols names the target (--whole adds them whole)", left, why))
	}
	return nil
}

// readTarget reads the selection's text, the identifiers it uses and the
// names it defines.
func (g *gatherer) readTarget() error {
	sel := g.x.Target
	text, _ := g.tx.Blob(sel.Path)
	lines := strings.SplitAfter(string(text), "\n")
	lo, hi := max(sel.StartLine, 1), min(sel.EndLine, len(lines))
	if sel.WholeFile || hi < lo {
		lo, hi = 1, len(lines)
	}
	g.targetText = strings.Join(lines[lo-1:hi], "")
	g.fileLines = lines
	g.idents = identSet(g.targetText)
	chunks, err := g.tx.FileChunks(sel.Path)
	if err != nil {
		return err
	}
	for _, ch := range chunks {
		if ch.Symbol != "" && ch.Part <= 1 && (sel.WholeFile || (ch.StartLine >= sel.StartLine && ch.EndLine <= sel.EndLine)) {
			g.defined = append(g.defined, ch.Symbol)
		}
	}
	g.defined = slices.Compact(slices.Sorted(slices.Values(g.defined)))
	return nil
}

func (g *gatherer) inTarget(start, end int) bool {
	sel := g.x.Target
	return sel.WholeFile || (start >= sel.StartLine && end <= sel.EndLine)
}

// namedIn returns the chunks of path that names holds: its top-level
// functions, types and constants by name, and the members of a named type
// that the target uses (a method called on an imported class). A type
// whose member is taken gives the member only; outline chunks, parts past
// the first of a split symbol and spans over 200 lines are left out.
func (g *gatherer) namedIn(path string, names map[string]bool) ([]store.Chunk, error) {
	chunks, err := g.tx.FileChunks(path)
	if err != nil {
		return nil, err
	}
	var named []store.Chunk
	for _, ch := range chunks {
		if ch.Symbol == "" || ch.Outline != "" || ch.Part > 1 || ch.EndLine-ch.StartLine > 200 {
			continue
		}
		top := len(ch.Parents) == 0 && names[ch.Symbol]
		member := len(ch.Parents) > 0 && names[ch.Parents[len(ch.Parents)-1]] && g.idents[ch.Symbol]
		if top || member {
			named = append(named, ch)
		}
	}
	// Drop a container when a chunk inside it was named too.
	named = slices.DeleteFunc(named, func(outer store.Chunk) bool {
		for _, in := range named {
			if in.ID != outer.ID && in.StartLine >= outer.StartLine && in.EndLine <= outer.EndLine {
				return true
			}
		}
		return false
	})
	return named[:min(len(named), g.limit)], nil
}

// importNames are the names an import brings that the target uses. A Go
// package is reached only through its qualifier, so they are the Y of
// each "pkg.Y" in the target. Elsewhere they are the names the import
// statement lists that the target uses ("use App\Models\User;", "from
// x import a, b", "import { a } from './x'"), and the members reached
// through a module-like name of it ("x.f", "x::f").
func (g *gatherer) importNames(imp related.Import) map[string]bool {
	names := map[string]bool{}
	line := ""
	if imp.Line > 0 && imp.Line <= len(g.fileLines) {
		line = g.fileLines[imp.Line-1]
	}
	quals := map[string]bool{}
	if g.x.Target.Language == "go" || imp.Dir != "" {
		quals[goPackageName(imp.Spec)] = true
		// An alias: `name "path"`.
		if f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "import ")); len(f) == 2 && strings.Trim(f[1], "\"`") == imp.Spec {
			quals = map[string]bool{f[0]: true}
		}
	} else {
		for n := range identSet(line) {
			if importKeywords()[n] {
				continue
			}
			if g.idents[n] {
				names[n] = true
			}
			quals[n] = true
		}
	}
	for q := range quals {
		for _, sep := range []string{".", "::", "->"} {
			for _, m := range qualifiedAfter(g.targetText, q+sep) {
				names[m] = true
			}
		}
	}
	return names
}

// importKeywords are words of import statements, never imported names.
var importKeywords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"import": true, "from": true, "use": true, "as": true, "require": true,
		"include": true, "using": true, "static": true, "function": true, "const": true, "type": true, "package": true,
		"mod": true, "crate": true, "self": true, "super": true, "require_relative": true, "load": true}
})

// goPackageName guesses a Go package's name from its import path: the
// last element, without a major version ("/v2") or a ".vN" suffix
// ("gopkg.in/yaml.v3").
func goPackageName(spec string) string {
	el := path.Base(spec)
	if len(el) > 1 && el[0] == 'v' && strings.Trim(el[1:], "0123456789") == "" {
		el = path.Base(path.Dir(spec))
	}
	if i := strings.Index(el, ".v"); i > 0 {
		el = el[:i]
	}
	return strings.ReplaceAll(el, "-", "_")
}

// qualifiedAfter returns the identifiers that follow prefix ("store.")
// in text where prefix starts a word.
func qualifiedAfter(text, prefix string) []string {
	var out []string
	for i := 0; ; {
		j := strings.Index(text[i:], prefix)
		if j < 0 {
			return out
		}
		at := i + j
		i = at + len(prefix)
		if at > 0 && isIdentByte(text[at-1]) {
			continue
		}
		end := i
		for end < len(text) && isIdentByte(text[end]) {
			end++
		}
		if end > i {
			out = append(out, text[i:end])
		}
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || (c|0x20 >= 'a' && c|0x20 <= 'z') || (c >= '0' && c <= '9')
}

// namingTarget returns the chunks of path whose text names one of the
// symbols the target defines.
func (g *gatherer) namingTarget(path string) ([]store.Chunk, error) {
	if len(g.defined) == 0 {
		return nil, nil
	}
	chunks, err := g.tx.FileChunks(path)
	if err != nil {
		return nil, err
	}
	text, _ := g.tx.Blob(path)
	var out []store.Chunk
	for _, ch := range chunks {
		if ch.Outline != "" || ch.StartByte < 0 || ch.EndByte > len(text) || ch.StartByte >= ch.EndByte {
			continue
		}
		ids := identSet(string(text[ch.StartByte:ch.EndByte]))
		for _, name := range g.defined {
			if ids[name] && ch.Symbol != name {
				out = append(out, ch)
				break
			}
		}
	}
	// Keep the innermost chunks: a test class's method, not the class.
	out = slices.DeleteFunc(out, func(outer store.Chunk) bool {
		for _, in := range out {
			if in.ID != outer.ID && in.StartLine >= outer.StartLine && in.EndLine <= outer.EndLine {
				return true
			}
		}
		return false
	})
	return out[:min(len(out), g.limit)], nil
}

// identSet is the set of identifiers in text (letters, digits, '_' and
// '$', not starting with a digit).
func identSet(text string) map[string]bool {
	out := map[string]bool{}
	start := -1
	for i := 0; i <= len(text); i++ {
		isIdent := i < len(text) && (text[i] == '_' || text[i] == '$' || text[i] >= 0x80 ||
			(text[i]|0x20 >= 'a' && text[i]|0x20 <= 'z') || (start >= 0 && text[i] >= '0' && text[i] <= '9'))
		switch {
		case isIdent && start < 0:
			start = i
		case !isIdent && start >= 0:
			out[text[start:i]] = true
			start = -1
		}
	}
	return out
}
