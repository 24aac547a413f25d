package search

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"

	"github.com/dossierhq/dossier/store"
)

// An Engine keeps copies of the data every query scans (vector entries,
// symbol names) for as long as the index's generation is unchanged. Queries
// open the index file read-only for their own duration only, so a running
// indexer is never held up, and a fresh memory map would otherwise fault in
// the same pages again for every query: at the size of Go's source tree
// (137k chunks) that was most of a vector query's time.

// vectorFile is one file's vector entries, copied out of the index.
type vectorFile struct {
	path    string
	model   string
	dims    int
	n       int
	entries []byte // n entries of vecindex.EntrySize(dims) bytes
}

// vectorCache holds every file's vector entries at one generation.
type vectorCache struct {
	gen    uint64
	loaded bool
	files  []vectorFile
	bytes  int
}

// vectors returns the index's vector entries, loading them when the index
// changed since the last query.
func (e *Engine) vectors(tx *store.Tx) ([]vectorFile, error) {
	gen := tx.Generation()
	if e.vecs.loaded && e.vecs.gen == gen {
		return e.vecs.files, nil
	}
	if e.oneShot {
		return inPlaceVectors(tx)
	}
	c := vectorCache{gen: gen, loaded: true}
	// One arena for all entries, sized by a first pass over the headers, so
	// the copy costs the size of the data and no more.
	total := 0
	err := tx.VectorRecords(func(p string, rec []byte) error {
		set, err := DecodeVectors(rec)
		if err != nil {
			return fmt.Errorf("vectors of %s: %w", p, err)
		}
		total += len(set.entries)
		return nil
	})
	if err != nil {
		return nil, err
	}
	arena := make([]byte, 0, total)
	err = tx.VectorRecords(func(p string, rec []byte) error {
		set, err := DecodeVectors(rec)
		if err != nil || len(arena)+len(set.entries) > total {
			return fmt.Errorf("vectors of %s changed while being read", p)
		}
		start := len(arena)
		arena = append(arena, set.entries...)
		c.files = append(c.files, vectorFile{path: p, model: set.Model, dims: set.Dims, n: set.n, entries: arena[start:len(arena):len(arena)]})
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.bytes = len(arena)
	e.vecs = c
	return c.files, nil
}

// inPlaceVectors returns the index's vector entries as slices of the
// index file's memory map, valid until tx ends: one pass, no copy. A
// process that answers one query pays for the copy and gets nothing back
// (on Go's source tree the copy and a second checksum pass were most of a
// hybrid query's time).
func inPlaceVectors(tx *store.Tx) ([]vectorFile, error) {
	var files []vectorFile
	err := tx.VectorRecords(func(p string, rec []byte) error {
		set, err := DecodeVectors(rec)
		if err != nil {
			return fmt.Errorf("vectors of %s: %w", p, err)
		}
		files = append(files, vectorFile{path: p, model: set.Model, dims: set.Dims, n: set.n, entries: set.entries})
		return nil
	})
	return files, err
}

// symbolNames returns every distinct lower-cased symbol name, for fuzzy
// lookup, loading them when the index changed since the last query.
func (e *Engine) symbolNames(tx *store.Tx) []string {
	gen := tx.Generation()
	if e.syms.loaded && e.syms.gen == gen {
		return e.syms.names
	}
	var names []string
	tx.SymbolNames(func(n string) { names = append(names, n) })
	e.syms = symbolCache{gen: gen, loaded: true, names: names}
	return names
}

// symbolCache holds the symbol names at one generation.
type symbolCache struct {
	gen    uint64
	loaded bool
	names  []string
}

// Recent answers are kept (seed 004: an LRU of 1000 entries for 5 minutes)
// under the query and the index's generation, so any change to the index
// retires them.
const (
	resultCacheSize = 1000
	resultCacheTTL  = 5 * time.Minute
)

// resultKey identifies a query against one state of the index.
func resultKey(gen uint64, q Query) string {
	b, _ := json.Marshal(q) // plain fields only: cannot fail
	return strconv.FormatUint(gen, 10) + "\x00" + string(b)
}

// cached returns a copy of a recent answer to q at generation gen.
func (e *Engine) cached(gen uint64, q Query) (Response, bool) {
	if e.results == nil {
		return Response{}, false
	}
	r, ok := e.results.Get(resultKey(gen, q))
	if !ok {
		return Response{}, false
	}
	r.Results = slices.Clone(r.Results)
	r.Debug.Notes = append(slices.Clone(r.Debug.Notes), "answered from the result cache")
	return r, true
}

func (e *Engine) remember(gen uint64, q Query, r Response) {
	if e.results == nil {
		e.results = expirable.NewLRU[string, Response](resultCacheSize, nil, resultCacheTTL)
	}
	r.Results = slices.Clone(r.Results)
	e.results.Add(resultKey(gen, q), r)
}
