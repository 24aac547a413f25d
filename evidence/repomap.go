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
// refresh rebuilds it. The graph is read from the files' map records the
// index stores (store's maprefs); the part's file= field is the key of
// what it was ranked from (mapKey: the index's map digest, the focus, the
// budget, the tokenizer), so status knows a map is current from one read
// of the digest, without reading the graph or ranking it.

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
// yet), as the extract of a part whose path is its selector. Its File
// field is the ranking's key (mapKey): while the index's map records, the
// focus, the budget and the tokenizer are those, the map is the same.
func (e *Engine) mapExtract(f *Flow, budget int) (Extract, error) {
	a, err := e.assembler()
	if err != nil {
		return Extract{}, err
	}
	g, id, err := e.mapGraph()
	if err != nil {
		return Extract{}, err
	}
	focus := mapFocus(f)
	key := mapKey(id, focus, budget, a.Counter().Encoding())
	text := cachedMap(g, key, focus, budget, a)
	if text == "" {
		return Extract{}, fmt.Errorf("map:%d: the index holds no definitions to map (is it a code repository? `dossier stats` shows what was indexed)", budget)
	}
	uri := mapScheme + ":" + strconv.Itoa(budget)
	x := Extract{Source: assemble.Source{URI: uri, Path: uri, CID: CID([]byte(text)), Span: "all", Language: "text"},
		Content: text, Whole: true}
	if strings.HasPrefix(id, digestID) {
		x.Source.File = key
	}
	return x, nil
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

// digestID starts a graph id that is the index's map digest (see
// store.Tx.MapDigest); any other id (a generation) holds for one process.
const digestID = "d:"

// mapKey names everything a map depends on: the graph (id), the focus,
// the budget and the tokenizer's encoding, hashed.
func mapKey(id string, focus map[string]float64, budget int, encoding string) string {
	paths := make([]string, 0, len(focus))
	for p, w := range focus {
		paths = append(paths, p+"\x00"+strconv.FormatFloat(w, 'g', -1, 64))
	}
	slices.Sort(paths)
	return CID([]byte(id + "\x02" + strings.Join(paths, "\x01") + "\x02" + strconv.Itoa(budget) + "\x02" + encoding))
}

// cachedMap is BuildMap, remembered by key for graph g: add resolves its
// selector twice and then asks status.
func cachedMap(g *repomap.Graph, key string, focus map[string]float64, budget int, a *assemble.Assembler) string {
	graphCache.Lock()
	defer graphCache.Unlock()
	if graphCache.g == g {
		if text, ok := graphCache.maps[key]; ok {
			return text
		}
	}
	text := BuildMap(g, focus, budget, a.Count)
	if graphCache.g == g {
		if len(graphCache.maps) >= 16 {
			clear(graphCache.maps)
		}
		graphCache.maps[key] = text
	}
	return text
}

// graphCache keeps the last graph built, per index file and graph id:
// status asks about a map after every change of the flow, and only the
// ranking depends on the flow.
var graphCache struct {
	sync.Mutex
	path, id string
	g        *repomap.Graph
	// maps are the maps built from g, by mapKey.
	maps map[string]string
}

// mapGraphID is the identity of the index's map graph: its map digest,
// or, for a workspace linked to a shared store, its generation.
func mapGraphID(tx *store.Tx) string {
	if d, ok := tx.MapDigest(); ok {
		return digestID + d
	}
	return "g:" + strconv.FormatUint(tx.Generation(), 10)
}

// mapGraph returns the index's map graph and its id, read once per id.
func (e *Engine) mapGraph() (*repomap.Graph, string, error) {
	db, err := openIndex(e.Root)
	if err != nil {
		return nil, "", err
	}
	defer db.Close()
	var g *repomap.Graph
	var id string
	err = db.View(func(tx *store.Tx) error {
		graphCache.Lock()
		defer graphCache.Unlock()
		path := store.Path(e.Root)
		id = mapGraphID(tx)
		if graphCache.g != nil && graphCache.path == path && graphCache.id == id {
			g = graphCache.g
			return nil
		}
		var err error
		if g, err = ReadGraph(tx); err == nil {
			graphCache.path, graphCache.id, graphCache.g = path, id, g
			graphCache.maps = map[string]string{}
		}
		return err
	})
	return g, id, err
}

// mapID is the index's map graph id, read without the graph.
func (e *Engine) mapID() (string, error) {
	db, err := openIndex(e.Root)
	if err != nil {
		return "", err
	}
	defer db.Close()
	var id string
	err = db.View(func(tx *store.Tx) error { id = mapGraphID(tx); return nil })
	return id, err
}

// ReadGraph builds the reference graph of an index from its files' map
// records (definitions and references, stored at index time).
func ReadGraph(tx *store.Tx) (*repomap.Graph, error) {
	files := map[string]*repomap.File{}
	err := tx.EachMapRefs(func(path string, rec []byte) error {
		f, err := repomap.Decode(path, rec)
		if err != nil {
			return err
		}
		files[path] = f
		return nil
	})
	if err != nil {
		return nil, err
	}
	return repomap.NewGraph(files), nil
}

// mapState is a repo map's staleness: "edited" by hand, "changed" when a
// rebuild for the flow as it is now would differ, else "".
func (e *Engine) mapState(f *Flow, p *Part, budget int) string {
	if !pristine(p.Content) {
		return "edited"
	}
	// The key the part was built with still holds: nothing it depends on
	// moved, and nothing need be ranked.
	if a, err := e.assembler(); err == nil && p.Source.File != "" {
		if id, err := e.mapID(); err == nil && strings.HasPrefix(id, digestID) &&
			mapKey(id, mapFocus(f), budget, a.Counter().Encoding()) == p.Source.File {
			return ""
		}
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
	content, same := renderEvidence(x.Source, x.Content), x.Source.CID == p.Source.CID
	if content == p.Content {
		return relocation{state: Unchanged}, nil
	}
	if err := rewritePart(f, p, content); err != nil {
		return relocation{}, err
	}
	if same {
		// The same map, under a new key (the index changed elsewhere):
		// kept so the next status need not rank it.
		return relocation{state: Unchanged}, nil
	}
	return relocation{state: Changed, why: "re-ranked for the flow's evidence as it is now"}, nil
}
