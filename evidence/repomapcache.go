package evidence

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/index/repomap"
	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/fsafe"
)

// The repo map's reference graph is a cache derived from the index, built
// the first time a map needs it and kept under .dossier/ (never by
// `dossier index`, whose time comes first), in two files:
//
//   - repomap.rows: per indexed file, its content hash, the definitions it
//     holds and every word of its text with its count. A file whose hash
//     is the index's keeps its row; only new and changed files are read
//     again, so a re-index of a few files costs a few files' reads.
//   - repomap.graph: the graph built from the rows (repomap's encoding),
//     after the digest of the index's paths and hashes it stands for. A process whose index has
//     that digest decodes it instead of building it.
//
// Rows hold all words, not only the names defined somewhere: a new
// definition gives the files that mention it an edge without reading
// them again. Both files are written whole under a temporary name and
// renamed into place, after a CRC-32 of their contents: a crash leaves
// the old file or none, and a damaged one is built again, never used.
// Nothing is trusted beyond its key: a row whose hash is not the index's,
// or a graph whose digest is not, is rebuilt, so a map never answers from
// an index that has changed since.

const (
	mapRowsFile  = "repomap.rows"
	mapGraphFile = "repomap.graph"
	// mapCacheVersion changes with what the files hold or how a row is
	// read from the index.
	mapCacheVersion = 1
)

// mapRows is the rows file.
type mapRows struct {
	Version, Schema int
	// Words is every word the rows count, indexed by their Words.
	Words []string
	Files []mapRow
}

// mapRow is one indexed file's part of the graph.
type mapRow struct {
	Path, Hash string
	Defs       []repomap.Def
	// Words are (index into mapRows.Words, count) pairs by index.
	Words []uint32
}

// indexKey is the digest of the index's paths and content hashes (in
// path order) and its schema: what the graph is derived from.
func indexKey(files []store.File) string {
	h := sha256.New()
	fmt.Fprintf(h, "repomap %d schema %d\n", mapCacheVersion, store.SchemaVersion)
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00%s\n", f.Path, f.Hash)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// mapCacheWrite is what a graph read left to write: the files whose
// contents changed, nil when they did not.
type mapCacheWrite struct {
	dir         string
	rows, graph []byte
}

// cachedGraph returns tx's reference graph from the cache in dir, built
// (incrementally from the rows kept) when the cache is not the index's;
// what to write back is returned, to be written after tx ends.
func cachedGraph(tx *store.Tx, dir string) (*repomap.Graph, mapCacheWrite, error) {
	var files []store.File
	if err := tx.FileStats(func(f store.File) { files = append(files, f) }); err != nil {
		return nil, mapCacheWrite{}, err
	}
	// A changed framework manifest derives unchanged files again
	// (index.Indexer.rederive), so their definitions may change while
	// their content hash does not: a row is kept for a hash and the
	// manifests' state together.
	var sum summary.Summary
	if _, err := tx.Summary(&sum); err != nil {
		return nil, mapCacheWrite{}, err
	}
	stamp := sha256.Sum256([]byte(sum.ManifestState))
	for i := range files {
		files[i].Hash += "/" + hex.EncodeToString(stamp[:8])
	}
	key := indexKey(files)
	if raw, err := readMapFile(filepath.Join(dir, mapGraphFile)); err == nil && bytes.HasPrefix(raw, []byte(key)) {
		if g, err := repomap.UnmarshalGraph(raw[len(key):]); err == nil {
			return g, mapCacheWrite{}, nil
		}
	}
	var old mapRows
	if readMapCache(filepath.Join(dir, mapRowsFile), &old) != nil || old.Version != mapCacheVersion || old.Schema != store.SchemaVersion {
		old = mapRows{}
	}
	rows, changed, err := updateRows(tx, &old, files)
	if err != nil {
		return nil, mapCacheWrite{}, err
	}
	g := rows.graph()
	w := mapCacheWrite{dir: dir}
	if changed {
		if w.rows, err = encodeMapCache(rows); err != nil {
			return nil, mapCacheWrite{}, err
		}
	}
	raw, err := g.MarshalBinary()
	if err != nil {
		return nil, mapCacheWrite{}, err
	}
	w.graph = sealMapFile(append([]byte(key), raw...))
	return g, w, nil
}

// updateRows returns the rows of the index's files: old's where the hash
// is the same, read from tx for the others; changed says they differ
// from old's. The words are numbered afresh, so the list holds only the
// words some file has.
func updateRows(tx *store.Tx, old *mapRows, files []store.File) (*mapRows, bool, error) {
	kept := make(map[string]*mapRow, len(old.Files))
	for i := range old.Files {
		kept[old.Files[i].Path] = &old.Files[i]
	}
	var stale []string
	for _, f := range files {
		if r, ok := kept[f.Path]; !ok || r.Hash != f.Hash {
			stale = append(stale, f.Path)
		}
	}
	fresh, err := readRows(tx, stale, len(stale) > len(files)/8)
	if err != nil {
		return nil, false, err
	}
	rows := &mapRows{Version: mapCacheVersion, Schema: store.SchemaVersion, Files: make([]mapRow, 0, len(files))}
	words := newWordList()
	renumber := make([]int64, len(old.Words))
	for i := range renumber {
		renumber[i] = -1
	}
	for _, f := range files {
		r, ok := fresh.rows[f.Path]
		src := fresh.words
		if !ok {
			r, src = kept[f.Path], old.Words
		}
		nr := mapRow{Path: f.Path, Hash: f.Hash, Defs: r.Defs, Words: make([]uint32, len(r.Words))}
		for i := 0; i+1 < len(r.Words); i += 2 {
			id := r.Words[i]
			if !ok { // old's numbering: each word looked up once
				if renumber[id] < 0 {
					renumber[id] = int64(words.id(src[id]))
				}
				nr.Words[i] = uint32(renumber[id])
			} else {
				nr.Words[i] = words.id(src[id])
			}
			nr.Words[i+1] = r.Words[i+1]
		}
		sortPairs(nr.Words)
		rows.Files = append(rows.Files, nr)
	}
	rows.Words = words.list
	return rows, len(stale) > 0 || len(old.Files) != len(files), nil
}

// sortPairs sorts (id, count) pairs by id.
func sortPairs(p []uint32) {
	type pair struct{ id, n uint32 }
	ps := make([]pair, len(p)/2)
	for i := range ps {
		ps[i] = pair{p[2*i], p[2*i+1]}
	}
	slices.SortFunc(ps, func(a, b pair) int { return int(a.id) - int(b.id) })
	for i, x := range ps {
		p[2*i], p[2*i+1] = x.id, x.n
	}
}

// freshRows are rows read from the index, numbering words in words.
type freshRows struct {
	rows  map[string]*mapRow
	words []string
}

// readRows reads the rows of paths from tx: one pass over every symbol
// and text when all is set (many files), a look-up per file otherwise.
func readRows(tx *store.Tx, paths []string, all bool) (out freshRows, err error) {
	out.rows = make(map[string]*mapRow, len(paths))
	for _, p := range paths {
		out.rows[p] = &mapRow{Path: p}
	}
	words := newWordList()
	defer func() { out.words = words.list }() // out is named: this is what returns
	var buf []byte
	count := func(path string, raw []byte) error {
		r := out.rows[path]
		if r == nil || raw == nil {
			return nil
		}
		text, err := store.DecodeBlobInto(buf, raw)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		buf = text
		r.Words = words.count(text)
		return nil
	}
	if len(paths) == 0 {
		return out, nil
	}
	if all {
		err = tx.SymbolsWithPrefix("", func(s store.Symbol) bool {
			if r := out.rows[s.Path]; r != nil {
				if d, ok := mapDef(s); ok {
					r.Defs = append(r.Defs, d)
				}
			}
			return true
		})
		if err == nil {
			err = tx.RawBlobs(count)
		}
		return out, err
	}
	for _, p := range paths {
		syms, err := tx.FileSymbols(p)
		if err != nil {
			return out, err
		}
		for _, s := range syms {
			if d, ok := mapDef(s); ok {
				out.rows[p].Defs = append(out.rows[p].Defs, d)
			}
		}
		if err := count(p, tx.RawBlob(p)); err != nil {
			return out, err
		}
	}
	return out, nil
}

// graph builds the reference graph of the rows, as ReadGraph builds it
// from the index.
func (rs *mapRows) graph() *repomap.Graph {
	var defs []repomap.Def
	names := map[string]bool{}
	for _, r := range rs.Files {
		defs = append(defs, r.Defs...)
		for _, d := range r.Defs {
			names[d.Name] = true
		}
	}
	isName := make([]bool, len(rs.Words))
	for i, w := range rs.Words {
		isName[i] = names[w]
	}
	mentions := map[string]map[string]int{}
	for _, r := range rs.Files {
		var m map[string]int
		for i := 0; i+1 < len(r.Words); i += 2 {
			if id := r.Words[i]; int(id) < len(isName) && isName[id] {
				if m == nil {
					m = map[string]int{}
				}
				m[rs.Words[id]] = int(r.Words[i+1])
			}
		}
		if m != nil {
			mentions[r.Path] = m
		}
	}
	return repomap.NewGraph(defs, mentions)
}

// wordList numbers words as they come.
type wordList struct {
	ids  map[string]uint32
	list []string
	// n and seen count one text's words (see count).
	n    []uint32
	seen []uint32
}

func newWordList() *wordList { return &wordList{ids: map[string]uint32{}} }

func (l *wordList) id(w string) uint32 {
	id, ok := l.ids[w]
	if !ok {
		id = uint32(len(l.list))
		l.ids[w] = id
		l.list = append(l.list, w)
	}
	return id
}

// count returns the (id, count) pairs of text's words, by id.
func (l *wordList) count(text []byte) []uint32 {
	eachWord(text, func(w []byte) {
		id, ok := l.ids[string(w)]
		if !ok {
			id = l.id(string(w))
		}
		for int(id) >= len(l.n) {
			l.n = append(l.n, 0)
		}
		if l.n[id] == 0 {
			l.seen = append(l.seen, id)
		}
		l.n[id]++
	})
	slices.Sort(l.seen)
	out := make([]uint32, 0, 2*len(l.seen))
	for _, id := range l.seen {
		out = append(out, id, l.n[id])
		l.n[id] = 0
	}
	l.seen = l.seen[:0]
	return out
}

// readMapFile returns the contents of the cache file at path, checked
// against the CRC-32 before them; any error (none, damaged) means it is
// built again. The graph file holds the index's key, then the graph as
// repomap encodes it; the rows file holds mapRows (repomaprows.go).
func readMapFile(path string) ([]byte, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(raw) < 4 || crc32.ChecksumIEEE(raw[4:]) != binary.LittleEndian.Uint32(raw) {
		return nil, errors.New("not whole")
	}
	return raw[4:], nil
}

// sealMapFile is data as a cache file holds it: a CRC-32, then data.
func sealMapFile(data []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, crc32.ChecksumIEEE(data)), data...)
}

// write puts the changed cache files in place, each atomically: the
// rows first, so that a graph never names rows that are not there.
func (w mapCacheWrite) write() error {
	if w.dir == "" {
		return nil
	}
	fsafe.Sweep(w.dir)
	for _, f := range []struct {
		name string
		data []byte
	}{{mapRowsFile, w.rows}, {mapGraphFile, w.graph}} {
		if f.data == nil {
			continue
		}
		path := filepath.Join(w.dir, f.name)
		t, err := fsafe.WriteTemp(path, f.data, 0o600)
		if err == nil {
			err = t.Rename(path)
		}
		if err != nil {
			return fmt.Errorf("repo map cache: %w", err)
		}
	}
	return nil
}

// mapDef is the definition a symbol gives the map, if any: a struct's
// fields and the like are left out (see memberKinds).
func mapDef(s store.Symbol) (repomap.Def, bool) {
	if s.Name == "" || s.Path == "" || memberKinds[s.Kind] {
		return repomap.Def{}, false
	}
	text, _, _ := strings.Cut(strings.TrimSpace(s.Signature), "\n")
	if text = strings.TrimSpace(text); text == "" {
		text = strings.TrimSpace(s.Kind + " " + s.Name)
	}
	if len(text) > 160 {
		text = text[:157] + "..."
	}
	return repomap.Def{Path: s.Path, Name: s.Name, Line: s.Line, Text: text}, true
}
