package search

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// An Engine keeps copies of the data every query scans (vector entries)
// for as long as the index's generation is unchanged. Queries open the
// index file read-only for their own duration only, so a running indexer
// is never held up, and a fresh memory map would otherwise fault in the
// same pages again for every query: at the size of Go's source tree (137k
// chunks) that was most of a vector query's time.

// vectorCache holds the vector entries a query scans at one generation.
type vectorCache struct {
	gen    uint64
	loaded bool
	files  []vectorFile
	bytes  int
}

// vectors returns the vector entries a query scans (see vectorSources):
// the files' records copied and checked when the index changed since the
// last query, and the blocks of the snapshot's table, which each query
// reads anew, only the pieces it needs (see vectable.go): a copy of the
// whole table would hold twice the memory to save a query a few
// milliseconds. A one-shot Engine reads the records in place too: a
// process that answers one query pays for a copy and gets nothing back.
func (e *Engine) vectors(v *view) ([]vectorFile, error) {
	gen := v.tx.Generation()
	if e.vecs.loaded && e.vecs.gen == gen {
		blocks, err := v.tableBlocks()
		return append(blocks, e.vecs.files...), err
	}
	files, err := v.vectorSources()
	if err != nil || e.oneShot {
		return files, err
	}
	c := vectorCache{gen: gen, loaded: true}
	// One arena for all the records' entries, so the copy costs the size
	// of the data and no more.
	total := 0
	for i := range files {
		total += len(files[i].entries)
	}
	arena := make([]byte, 0, total)
	for i := range files {
		if files[i].table != nil {
			continue
		}
		start := len(arena)
		arena = append(arena, files[i].entries...)
		files[i].entries = arena[start:len(arena):len(arena)]
		c.files = append(c.files, files[i])
	}
	c.bytes = len(arena)
	e.vecs = c
	return files, nil
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
