package evidence

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/repomap"
	"github.com/dossierhq/dossier/store"
)

// A repo map part (`evidence add map[:TOKENS]`) lists the repository's
// most important definitions, ranked by its reference graph personalised
// to the files the flow's other evidence holds (see index/repomap), fitted
// to TOKENS by the flow's tokenizer. Its provenance names it
// (source_uri=map:TOKENS), which is all a rebuild needs: status marks it
// "changed" when the flow's evidence or the index moved the ranking, and
// refresh rebuilds it.

// mapScheme starts a repo map's selector and source_uri.
const mapScheme = "map"

// DefaultMapTokens is the budget of a bare `map` selector.
const DefaultMapTokens = 1024

// parseMapSelector reads "map" or "map:TOKENS"; ok is false for any other
// selector (a file named map is added as ./map).
func parseMapSelector(s string) (tokens int, ok bool, err error) {
	if s == mapScheme {
		return DefaultMapTokens, true, nil
	}
	v, ok := strings.CutPrefix(s, mapScheme+":")
	if !ok {
		return 0, false, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, true, usagef("%s: the map's budget is a whole number of tokens above 0 (map:1024); for a file named %s, add ./%s", s, s, s)
	}
	if n > maxMapTokens {
		return 0, true, usagef("%s: a map of more than %d tokens is no overview; give a smaller budget", s, maxMapTokens)
	}
	return n, true, nil
}

// maxMapTokens bounds a map's budget.
const maxMapTokens = 65536

// isMapPart reports whether p is a repo map and its budget.
func isMapPart(p *Part) (int, bool) {
	if p.Role != assemble.Evidence || p.Link || !strings.HasPrefix(p.Source.URI, mapScheme+":") {
		return 0, false
	}
	n, ok, err := parseMapSelector(p.Source.URI)
	return n, ok && err == nil
}

// mapExtract builds the map of budget tokens for flow f (nil: no flow
// yet), as the extract of a part whose path is its selector.
func (e *Engine) mapExtract(f *Flow, budget int) (Extract, error) {
	a, err := e.assembler()
	if err != nil {
		return Extract{}, err
	}
	g, err := e.mapGraph()
	if err != nil {
		return Extract{}, err
	}
	text := cachedMap(g, mapFocus(f), budget, a)
	if text == "" {
		return Extract{}, fmt.Errorf("map:%d: the index holds no definitions to map (is it a code repository? `dossier stats` shows what was indexed)", budget)
	}
	uri := mapScheme + ":" + strconv.Itoa(budget)
	return Extract{Source: assemble.Source{URI: uri, Path: uri, CID: CID([]byte(text)), Span: "all", Language: "text"},
		Content: text, Whole: true}, nil
}

// BuildMap ranks g's definitions around focus and renders as many as fit
// in budget tokens by count.
func BuildMap(g *repomap.Graph, focus map[string]float64, budget int, count func(string) int) string {
	_, text := repomap.Fit(g.Rank(focus), budget, count)
	return text
}

// mapFocus is the restart vector: one unit per evidence part on the file
// it was taken from (repo maps excluded), none without a flow.
func mapFocus(f *Flow) map[string]float64 {
	focus := map[string]float64{}
	if f == nil {
		return focus
	}
	for _, p := range f.Parts {
		if _, isMap := isMapPart(p); !isMap && p.Role == assemble.Evidence && p.Active() && p.Source.Path != "" {
			focus[p.Source.Path]++
		}
	}
	return focus
}

// cachedMap is BuildMap, remembered for the graph, focus, budget and
// encoding: add resolves its selector twice and then asks status.
func cachedMap(g *repomap.Graph, focus map[string]float64, budget int, a *assemble.Assembler) string {
	paths := make([]string, 0, len(focus))
	for p, w := range focus {
		paths = append(paths, p+"\x00"+strconv.FormatFloat(w, 'g', -1, 64))
	}
	slices.Sort(paths)
	focusKey := strings.Join(paths, "\x01")
	key := focusKey + "\x02" + strconv.Itoa(budget) + "\x02" + a.Counter().Encoding()
	graphCache.Lock()
	defer graphCache.Unlock()
	if graphCache.g != g {
		_, text := repomap.Fit(g.Rank(focus), budget, a.Count)
		return text
	}
	if text, ok := graphCache.maps[key]; ok {
		return text
	}
	// The ranking depends on the focus alone: two maps of one flow (two
	// budgets) rank once.
	ranked, ok := graphCache.ranks[focusKey]
	if !ok {
		ranked = g.Rank(focus)
		if len(graphCache.ranks) >= 4 {
			clear(graphCache.ranks)
		}
		graphCache.ranks[focusKey] = ranked
	}
	_, text := repomap.Fit(ranked, budget, a.Count)
	if len(graphCache.maps) >= 16 {
		clear(graphCache.maps)
	}
	graphCache.maps[key] = text
	return text
}

// graphCache keeps the last graph built, per index file and generation:
// status asks about a map after every change of the flow, and only the
// ranking depends on the flow.
var graphCache struct {
	sync.Mutex
	path string
	gen  uint64
	g    *repomap.Graph
	// maps are the maps built from g, by cachedMap's key, and ranks its
	// rankings, by focus.
	maps  map[string]string
	ranks map[string][]repomap.Ranked
}

// mapGraph is the index's reference graph: this process's, or the one
// kept under .dossier/ (repomapcache.go), or built (and kept) now.
func (e *Engine) mapGraph() (*repomap.Graph, error) {
	db, err := openIndex(e.Root)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var g *repomap.Graph
	var w mapCacheWrite
	graphCache.Lock()
	defer graphCache.Unlock()
	err = db.View(func(tx *store.Tx) error {
		path, gen := store.Path(e.Root), tx.Generation()
		if graphCache.g != nil && graphCache.path == path && graphCache.gen == gen {
			g = graphCache.g
			return nil
		}
		var err error
		if g, w, err = cachedGraph(tx, store.Dir(e.Root)); err == nil {
			graphCache.path, graphCache.gen, graphCache.g = path, gen, g
			graphCache.maps, graphCache.ranks = map[string]string{}, map[string][]repomap.Ranked{}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	// The map is right without the cache: a workspace that cannot keep
	// it (read-only) builds the graph again next time, and says so.
	if err := w.write(); err != nil && e.Stderr != nil {
		fmt.Fprintf(e.Stderr, "warning: %v (the next map builds the graph again)\n", err)
	}
	return g, nil
}

// memberKinds are the symbols a map leaves out: a struct's fields are
// read with their type, and their names (to, be, func in C) are words
// every text mentions.
var memberKinds = map[string]bool{"field": true, "property": true, "member": true, "attribute": true, "key": true}

// ReadGraph builds the reference graph of an index from scratch: its
// symbols are the definitions, and every identifier of every indexed text
// that names one is a mention. The graph a map uses is cachedGraph's,
// which must equal it.
func ReadGraph(tx *store.Tx) (*repomap.Graph, error) {
	var defs []repomap.Def
	names := map[string]bool{}
	err := tx.SymbolsWithPrefix("", func(s store.Symbol) bool {
		if d, ok := mapDef(s); ok {
			defs = append(defs, d)
			names[s.Name] = true
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	mentions := map[string]map[string]int{}
	var buf []byte
	err = tx.RawBlobs(func(path string, raw []byte) error {
		text, err := store.DecodeBlobInto(buf, raw)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		buf = text
		if m := identifiers(text, names); len(m) > 0 {
			mentions[path] = m
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return repomap.NewGraph(defs, mentions), nil
}

// identifiers counts the words of text that names holds.
func identifiers(text []byte, names map[string]bool) map[string]int {
	var m map[string]int
	eachWord(text, func(w []byte) {
		if names[string(w)] {
			if m == nil {
				m = map[string]int{}
			}
			m[string(w)]++
		}
	})
	return m
}

// eachWord calls fn with each word of text: letters, digits, '_' and
// any non-ASCII byte, not starting with a digit.
func eachWord(text []byte, fn func(w []byte)) {
	isWord := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
	}
	for i := 0; i < len(text); {
		if !isWord(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isWord(text[j]) {
			j++
		}
		if c := text[i]; !(c >= '0' && c <= '9') {
			fn(text[i:j])
		}
		i = j
	}
}

// mapState is a repo map's staleness: "edited" by hand, "changed" when a
// rebuild for the flow as it is now would differ, else "".
func (e *Engine) mapState(f *Flow, p *Part, budget int) string {
	if !pristine(p.Content) {
		return "edited"
	}
	x, err := e.mapExtract(f, budget)
	if err != nil {
		return "source gone"
	}
	if x.Source.CID != p.Source.CID {
		return "changed"
	}
	return ""
}

// diffMap is `flow diff` for a repo map: true when a rebuild would give
// the same map, else the difference is written to w.
func (e *Engine) diffMap(w io.Writer, f *Flow, p *Part, budget int) bool {
	x, err := e.mapExtract(f, budget)
	switch {
	case err != nil:
		fmt.Fprintf(w, "✗ lost     %s: %v\n", p.ID(), err)
	case x.Source.CID == p.Source.CID:
		return true
	default:
		fmt.Fprintf(w, "  changed  %s: re-ranked for the flow's evidence and the index as they are now\n", p.ID())
		fmt.Fprint(w, shortDiff(p.Code, x.Content, 20))
	}
	return false
}

// refreshMap rebuilds a repo map part for the flow as it is now.
func (e *Engine) refreshMap(f *Flow, p *Part, budget int) (relocation, error) {
	x, err := e.mapExtract(f, budget)
	if err != nil {
		return relocation{}, err
	}
	content := renderEvidence(x.Source, x.Content)
	if content == p.Content {
		return relocation{state: Unchanged}, nil
	}
	if err := rewritePart(f, p, content); err != nil {
		return relocation{}, err
	}
	return relocation{state: Changed, why: "re-ranked for the flow's evidence as it is now"}, nil
}
