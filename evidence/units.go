package evidence

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/segment"
	"github.com/dossierhq/dossier/store"
)

// unit is one chunk of a file, as a span of its current text: a symbol's
// (sym, with its enclosing symbols) or a stretch of other code.
type unit struct {
	sym        string
	parents    []string
	start, end int  // lines, 1-based, inclusive
	split      bool // one part of a symbol split for size
	member     bool // a constant, field or property inside a chunk
	outline    bool // a type's outline, not a span of the source
}

// name is the unit's name as a selector gives it: "Type.Method".
func (u unit) name() string { return qualified(u.parents, u.sym) }

// named tells whether u is what the selector name ("Name" or
// "Parent.Name") names.
func (u unit) named(name string) bool {
	parent, base := splitQualified(name)
	return u.sym == base && (parent == "" || len(u.parents) > 0 && u.parents[len(u.parents)-1] == parent)
}

// unitsNow returns rel's chunks and member symbols for raw, its text as
// it is now: the index's when the index holds exactly this text, else a
// parse of it now (what the indexer would make of it), so a span is never
// taken from an index older than the file. fresh says which.
func unitsNow(index func() *store.DB, rel string, raw []byte) (units []unit, fresh bool, err error) {
	sum := sha256.Sum256(raw)
	key := rel + "\x00" + string(sum[:])
	if c, ok := unitCache.get(key); ok {
		return c.units, c.fresh, nil
	}
	defer func() {
		if err == nil {
			unitCache.put(key, cachedUnits{units, fresh})
		}
	}()
	if db := index(); db != nil {
		err = db.View(func(tx *store.Tx) error {
			f, ok, err := tx.File(rel)
			if err != nil || !ok {
				return err
			}
			sum := sha256.Sum256(raw)
			if f.Hash != hex.EncodeToString(sum[:]) {
				return nil
			}
			chunks, err := tx.FileChunks(rel)
			if err != nil {
				return err
			}
			fresh = true
			for _, c := range chunks {
				units = append(units, unit{sym: c.Symbol, parents: c.Parents, start: c.StartLine, end: c.EndLine, split: c.Parts > 1, outline: c.Outline != ""})
			}
			return nil
		})
		if err != nil || fresh {
			return units, fresh, err
		}
	}
	res := parseNow(rel, raw)
	for _, s := range res.Segments {
		units = append(units, unit{sym: s.Name, parents: s.Parents, start: s.StartLine, end: s.EndLine, split: s.Parts > 1, outline: s.Outline})
	}
	for _, s := range res.Symbols {
		units = append(units, unit{sym: s.Name, parents: s.Parents, start: s.StartLine, end: s.EndLine, member: true})
	}
	return units, false, nil
}

// unitCache keeps the units of the last texts asked about, by path and
// content hash: the workbench asks for a changed file's parts after every
// change, and one parse per text is enough. A text's units do not depend
// on where they came from (the index describes that very text, or a
// parse does), so the key needs no index state.
var unitCache = &unitsLRU{m: map[string]cachedUnits{}}

type cachedUnits struct {
	units []unit
	fresh bool
}

// unitsLRU is a small map dropped whole when full: texts come and go
// with a flow's sources, and a cold parse is cheap next to a stale read.
type unitsLRU struct {
	mu sync.Mutex
	m  map[string]cachedUnits
}

func (c *unitsLRU) get(k string) (cachedUnits, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *unitsLRU) put(k string, v cachedUnits) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= 256 {
		clear(c.m)
	}
	c.m[k] = v
}

// lazyIndex opens the workspace index on first use (nil when it cannot
// be opened: a parse stands in); done closes it if it was.
func lazyIndex(root string) (index func() *store.DB, done func()) {
	var db *store.DB
	tried := false
	index = func() *store.DB {
		if !tried {
			tried = true
			if d, err := openIndex(root); err == nil {
				db = d
			}
		}
		return db
	}
	return index, func() {
		if db != nil {
			db.Close()
		}
	}
}

// known is an index already open (or nil), for unitsNow.
func known(db *store.DB) func() *store.DB { return func() *store.DB { return db } }

// parseNow segments raw as the indexer does (describers aside).
func parseNow(rel string, raw []byte) segment.Result {
	head := raw[:min(len(raw), 512)]
	l := lang.Detect(rel, head)
	ps := segment.NewParsers()
	defer ps.Close()
	return segment.File(context.Background(), ps, l, lang.SourceType(rel, l, head), raw)
}

// spanOf is the lines of the symbol name in units: the union of the
// chunks named so, else of the member symbols (a constant or field is no
// chunk of its own). The index's member symbols are looked up by name
// (see Tx.SpanSymbols); a parse's are among the units.
func spanOf(index func() *store.DB, rel, name string, units []unit, fresh bool) (start, end int, names []string, err error) {
	widen := func(a, b int) {
		if start == 0 || a < start {
			start = a
		}
		end = max(end, b)
	}
	var matched []unit
	for _, u := range units {
		if u.sym == "" || u.member {
			continue
		}
		names = append(names, u.name())
		if u.named(name) {
			matched = append(matched, u)
			widen(u.start, u.end)
		}
	}
	if err := oneSymbol(rel, name, matched); err != nil {
		return 0, 0, names, err
	}
	if start > 0 {
		return start, end, names, nil
	}
	if !fresh {
		for _, u := range units {
			if u.member && u.named(name) {
				widen(u.start, u.end)
			}
		}
		return start, end, names, nil
	}
	db := index()
	if db == nil {
		return start, end, names, nil
	}
	err = db.View(func(tx *store.Tx) error {
		members, err := tx.SpanSymbols(rel, name)
		for _, s := range members {
			widen(s.Line, s.EndLine)
		}
		return err
	})
	return start, end, names, err
}

// oneSymbol refuses a name that matches symbols of different parents
// (three types' ServeHTTP): their union would be every line between
// them. The pieces of one symbol (a split chunk, an outline and its
// members) share their parents and stay one span.
func oneSymbol(rel, name string, matched []unit) error {
	var quals []string
	for _, u := range matched {
		if q := strings.Join(append(slices.Clone(u.parents), u.sym), "."); !slices.Contains(quals, q) {
			quals = append(quals, q)
		}
	}
	if len(quals) < 2 {
		return nil
	}
	var list []string
	for _, u := range matched {
		if l := fmt.Sprintf("  %s::@%s (line %d)", rel, u.name(), u.start); !slices.Contains(list, l) && !u.outline {
			list = append(list, l)
		}
	}
	return fmt.Errorf("@%s names %d symbols in %s; pick one:\n%s", name, len(quals), rel, strings.Join(list, "\n"))
}

// symbolSpan finds the lines of name ("Name" or "Parent.Name") in the file
// rel whose text is raw, as it is now (see unitsNow).
func symbolSpan(index func() *store.DB, rel, name string, raw []byte) (int, int, error) {
	units, fresh, err := unitsNow(index, rel, raw)
	if err != nil {
		return 0, 0, err
	}
	start, end, names, err := spanOf(index, rel, name, units, fresh)
	if err != nil {
		return 0, 0, err
	}
	if start == 0 {
		return 0, 0, fmt.Errorf("no symbol %q in %s%s", name, rel, nearest(name, names))
	}
	return start, end, nil
}

// symbolAt is the symbol whose chunk is exactly lines start-end of units,
// as a selector names it, when one chunk alone is that symbol and no
// other chunk shares its name; else "". A span taken by its lines from a
// chunk (a search hit, a caller) is then recorded, and found again, by
// its symbol.
func symbolAt(units []unit, start, end int) string {
	sym := ""
	for _, u := range units {
		if u.member || u.sym == "" || u.start != start || u.end != end {
			continue
		}
		if u.split {
			return ""
		}
		sym = u.name()
	}
	if sym == "" {
		return ""
	}
	n := 0
	for _, u := range units {
		if !u.member && u.sym != "" && u.name() == sym {
			n++
		}
	}
	if n != 1 {
		return ""
	}
	return sym
}

// track completes the provenance of x before it becomes a part: lines
// that are exactly one symbol's chunk are recorded as that symbol (so a
// search hit or a caller is named and found again by it), and the commit
// HEAD names, with whether the file differed from it. A read-only use of
// a span (a preview, an MCP read) never pays for the parse or git.
func (e *Engine) track(x *Extract) {
	raw, err := ReadRegular(filepath.Join(e.Root, filepath.FromSlash(x.Source.Path)), resolveRoots(e.Root))
	if err != nil {
		return
	}
	if x.Source.Symbol == "" && strings.HasPrefix(x.Source.Span, "lines=") && lang.IsCode(x.Source.Language) {
		index, done := lazyIndex(e.Root)
		if units, _, err := unitsNow(index, x.Source.Path, raw); err == nil {
			x.Source.Symbol = symbolAt(units, x.Source.StartLine, x.Source.EndLine)
		}
		done()
	}
	x.Source.Commit, x.Source.Dirty = gitStamp(e.Root, x.Source.Path, raw)
}
