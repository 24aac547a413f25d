package search

import (
	"container/heap"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/index/vecindex"
	"github.com/dossierhq/dossier/store"
)

// builtinQueryVector embeds a query with the builtin embedder, weighting
// each term by its IDF in the index, so rare words steer the vector.
func (v *view) builtinQueryVector(q string) ([]float32, bool, error) {
	qt, st, err := v.queryTerms(q)
	if err != nil || len(qt) == 0 {
		return nil, false, err
	}
	acc := make(embed.Vec, embed.BuiltinDims)
	for t, n := range qt {
		v.e.emb.Add(acc, t, float32(st.idf(t))*embed.TermWeight(t, float32(n)))
	}
	vec := make([]float32, embed.BuiltinDims)
	acc.Float(vec)
	return vec, true, nil
}

// vector ranks chunks by cosine similarity with the query vector qv of
// model m: an exact scan over every chunk's int8 entry (the snapshot's
// table by column, reading the query's components only, see vectable.go;
// dirty files' records), split across the cores, whose best estimates are
// then rescored from their residuals (vecindex). The
// similarity of every chunk in want (other retrievers' candidates) is also
// returned, so fusion can weigh each candidate by all its evidence. Scores
// are absolute, calibrated on the scan's own cosines (see cosineNull).
func (v *view) vector(qv []float32, m store.VectorModel, f filter, limit int, want []hit) ([]hit, map[key]hit, error) {
	model := m.Model
	// Hashed features collide: below minCosine a builtin match is noise.
	floor := 0.0
	if m.Provider == store.ProviderBuiltin {
		floor = minCosine
	}
	if v.tx.Shared() {
		return v.vectorShared(qv, m, f, limit, want, floor)
	}
	type file struct {
		*vectorFile
		keep func(ord int) bool
	}
	sources, err := v.e.vectors(v)
	if err != nil {
		return nil, nil, err
	}
	var files []file
	var mismatch *vectorFile
	others := 0
	var skip []bool // per snapshot path, for the table's blocks
	for i := range sources {
		vf := &sources[i]
		if vf.path != "" && !f.path(vf.path) {
			continue
		}
		if vf.model != model || vf.dims != len(qv) {
			if vf.path != "" {
				others++
			} else if mismatch == nil || mismatch.path != "" {
				others += v.tableFiles() // once, for the first block
			}
			mismatch = vf
			continue
		}
		var keep func(int) bool
		if vf.path != "" {
			if keep, err = v.kindFilter(vf.path, f); err != nil {
				return nil, nil, err
			}
		} else if skip == nil {
			if skip, err = v.skipPaths(f); err != nil {
				return nil, nil, err
			}
			// The scan reads every document's entry (see docsIn).
			if err := v.docsIn(0, v.e.snap.meta.Docs); err != nil {
				return nil, nil, err
			}
		}
		files = append(files, file{vf, keep})
	}
	if others > 0 && len(files) > 0 {
		v.notes = append(v.notes, fmt.Sprintf("%d files have vectors from %q, not the index's %q (an interrupted re-embedding): run `dossier index`", others, mismatch.model, model))
	}
	if len(files) == 0 && mismatch != nil {
		return nil, nil, fmt.Errorf("the index's vectors come from %q (%d dimensions) but this query was embedded with %q (%d): search with the embedder the index was built with, or re-index with `dossier index --embedder`",
			mismatch.model, mismatch.dims, model, len(qv))
	}
	q := vecindex.NewQuery(qv)
	size := vecindex.EntrySize(len(qv))
	ncand := vecindex.Candidates(limit)
	paths, kinds, srcs := &v.e.snap.paths, v.e.snap.meta.Kinds, v.e.snap.meta.SrcTypes
	// The table's blocks are scanned by column (see vectable.go); the
	// scan keeps the components of every document it may rescore: its
	// best estimates, and the documents of want.
	var table *colTable // the snapshot's, when scanned
	for _, fl := range files {
		if fl.table != nil {
			table = fl.table
		}
	}
	var (
		cq       *vecindex.ColumnQuery
		wantDocs []uint64 // a bit per document of the table
		allow    []bool   // per kind and source type code: see allowed
	)
	if t := v.e.snap.meta.Vectors; v.hasSnap && t != nil && t.Model == model && t.Dims == len(qv) {
		cq = q.Columns()
		wantDocs = make([]uint64, (v.e.snap.meta.Docs+63)/64)
		for _, h := range want {
			if d, ok, err := v.tableDoc(h.key); err != nil {
				return nil, nil, err
			} else if ok {
				wantDocs[d/64] |= 1 << (d % 64)
			}
		}
		// Codes past the names (a damaged table) name nothing.
		nameOf := func(names []string, code int) string {
			if code < len(names) {
				return names[code]
			}
			return ""
		}
		allow = make([]bool, (len(kinds)+1)*(len(srcs)+1))
		for k := range len(kinds) + 1 {
			for s := range len(srcs) + 1 {
				allow[k*(len(srcs)+1)+s] = f.kind(nameOf(kinds, k), nameOf(srcs, s))
			}
		}
	}
	allowed := func(d doc) bool {
		return allow[min(int(d.kind), len(kinds))*(len(srcs)+1)+min(int(d.src), len(srcs))]
	}
	// A file of its own counts for little; a block of the table holds
	// thousands of documents.
	workers := min(runtime.GOMAXPROCS(0), max(1, len(files)/64))
	if skip != nil {
		workers = runtime.GOMAXPROCS(0)
	}
	heaps := make([]hitHeap, workers)    // the records' hits
	docHeaps := make([]docHeap, workers) // the table's
	for w := range docHeaps {
		docHeaps[w] = docHeap{h: make([]docHit, 0, ncand), paths: paths}
	}
	nulls := make([]cosineNull, workers)
	kept := make([]keptComps, workers)
	if cq != nil {
		// Room for what a scan keeps, as a rule, so it seldom grows: fresh
		// memory is a page fault per page, and a slice that doubles copies
		// what it held. A worker keeps the candidates of each of its
		// blocks that are still in its heap at the block's end: on Go's
		// source tree (9 blocks a worker), 1,100-1,500 for 432 candidates
		// and 200 of want.
		for w := range kept {
			n := 4*ncand + len(want)
			kept[w] = keptComps{docs: make([]int, 0, n), scales: make([]float32, 0, n), comps: make([]byte, 0, n*len(cq.Dims))}
		}
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			h, dh, null := &heaps[w], &docHeaps[w], &nulls[w]
			type toKeep struct {
				j int
				s float64 // +Inf for a document of want
			}
			var (
				buf          []byte // a block read by copy, reused
				pieces, cols [][]byte
				acc          []uint64
				keep         = make([]toKeep, 0, ncand)
			)
			for i := w; i < len(files); i += workers {
				fl := &files[i]
				if fl.table == nil {
					for j := range fl.n {
						if fl.keep == nil || fl.keep(j) {
							s := float64(q.Estimate(fl.entries[j*size : (j+1)*size]))
							null.add(s)
							if h.Len() < ncand || s >= (*h)[0].score {
								h.offer(hit{key: key{fl.path, j}, score: s}, ncand)
							}
						}
					}
					continue
				}
				var scales []byte
				var err error
				if scales, pieces, buf, err = fl.table.read(fl.block, cq.Dims, buf, pieces); err != nil {
					errs[w] = err
					return
				}
				cols = cols[:0]
				for _, p := range pieces {
					cols = append(cols, p[:fl.n])
				}
				if na := vecindex.AccSize(fl.n); cap(acc) < na {
					acc = make([]uint64, na)
				} else {
					acc = acc[:na]
					clear(acc)
				}
				cq.Accumulate(acc, cols)
				// The documents to keep, in order: want's, and those the
				// heap took, unless a later one of the block pushed them
				// out (its worst is then above them).
				keep = keep[:0]
				for j := range fl.n {
					dn := fl.first + j
					d := getDoc(v.docs, dn)
					wanted := wantDocs[dn/64]&(1<<(dn%64)) != 0
					if skip[d.path] || !allowed(d) {
						if wanted {
							keep = append(keep, toKeep{j, math.Inf(1)})
						}
						continue
					}
					scale := math.Float32frombits(binary.LittleEndian.Uint32(scales[4*j:]))
					s := float64(cq.Estimate(acc, j, scale))
					null.add(s)
					took := (len(dh.h) < ncand || s >= dh.h[0].score) && dh.offer(docHit{score: s, path: d.path, ord: d.ordinal}, ncand)
					if took || wanted {
						keep = append(keep, toKeep{j, s})
						if wanted {
							keep[len(keep)-1].s = math.Inf(1)
						}
					}
				}
				worst := math.Inf(-1)
				if len(dh.h) >= ncand {
					worst = dh.h[0].score
				}
				for _, k := range keep {
					if k.s >= worst {
						kept[w].add(fl.first+k.j, math.Float32frombits(binary.LittleEndian.Uint32(scales[4*k.j:])), pieces, k.j)
					}
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	var all []hit
	var null cosineNull
	var best docHeap // the workers' table candidates: the best ncand of them
	for w, h := range heaps {
		all = append(all, h...)
		best.h = append(best.h, docHeaps[w].h...)
		null.merge(nulls[w])
	}
	best.paths = paths
	all = best.best(ncand).hits(all)
	// Rescore the best estimates, and the other retrievers' candidates,
	// from their residuals: for a file the snapshot's table holds, the
	// components the scan kept and the document's row of residuals, read
	// by copy; else the file's own record.
	sets := map[string]VectorSet{}
	var refineOnce func(k key) (float64, bool, error)
	var row, resid []byte // a document's row of residuals, and those at cq.Dims
	if cq != nil && table != nil {
		row, resid = make([]byte, table.rowSize()), make([]byte, len(cq.Dims))
	}
	// Each rescore of a table document reads its row of residuals: the
	// candidates of the scan and of the other retrievers overlap, so each
	// cosine is kept for the second.
	type cosine struct {
		s  float64
		ok bool
	}
	done := make(map[key]cosine, ncand+len(want))
	refine := func(k key) (float64, bool, error) {
		if c, ok := done[k]; ok {
			return c.s, c.ok, nil
		}
		s, ok, err := refineOnce(k)
		if err == nil {
			done[k] = cosine{s, ok}
		}
		return s, ok, err
	}
	refineOnce = func(k key) (float64, bool, error) {
		if cq != nil {
			d, ok, err := v.tableDoc(k)
			if err != nil {
				return 0, false, err
			}
			if ok {
				scale, comps, err := keptOrRead(kept, d, table, cq)
				if err == nil {
					err = table.resid(d, cq.Dims, row, resid)
				}
				if err != nil {
					return 0, false, err
				}
				return float64(cq.Refine(comps, resid, scale)), true, nil
			}
		} else if _, ok, err := v.tableDoc(k); err != nil || ok {
			// In a table of another model.
			return 0, false, err
		}
		set, ok := sets[k.path]
		if !ok {
			var err error
			if rec := v.tx.VectorRecord(k.path); rec != nil {
				if set, err = DecodeVectors(rec); err != nil {
					return 0, false, fmt.Errorf("vectors of %s: %w", k.path, err)
				}
			}
			sets[k.path] = set
		}
		if set.Model != model || set.Dims != len(qv) || k.ord >= set.Len() {
			return 0, false, nil
		}
		return float64(q.Refine(set.Entry(k.ord), set.Resid(k.ord))), true, nil
	}
	cands := top(all, ncand)
	for i := range cands {
		s, ok, err := refine(cands[i].key)
		if err != nil {
			return nil, nil, err
		}
		if ok {
			cands[i].score = s
		}
	}
	return v.scored(top(cands, limit), null, m, f, want, floor, refine)
}

// scored turns the best cosines (hits, sorted) into absolute vector
// scores calibrated on null, dropping those below floor, and scores the
// other retrievers' candidates (want) with refine: the end of a vector
// search, local or shared.
func (v *view) scored(hits []hit, null cosineNull, m store.VectorModel, f filter, want []hit, floor float64, refine func(key) (float64, bool, error)) ([]hit, map[key]hit, error) {
	for len(hits) > 0 && hits[len(hits)-1].score < floor {
		hits = hits[:len(hits)-1]
	}
	scale := null.scale(hits)
	if m.Provider == store.ProviderBuiltin && v.qst.mass > 0 {
		// The builtin embedder hashes the query's words and their
		// trigrams: words the index does not hold match only by
		// collision, so they lend the vectors no confidence.
		scale *= math.Pow(v.qst.known/v.qst.mass, knownPow)
	}
	for i := range hits {
		hits[i].raw = hits[i].score
		hits[i].score *= scale
	}
	cos := make(map[key]hit, len(want))
	for _, h := range want {
		if !f.path(h.key.path) {
			continue
		}
		s, ok, err := refine(h.key)
		if err != nil {
			return nil, nil, err
		}
		if ok && s >= floor {
			cos[h.key] = hit{key: h.key, raw: s, score: s * scale}
		}
	}
	return hits, cos, nil
}

// minCosine is the similarity below which two unrelated texts land by
// chance (random hashed vectors of this size reach about 0.1).
const minCosine = 0.15

// hitHeap is a min-heap of hits, the worst on top: the lowest score, and
// of equal scores the last by path and position (the order top sorts
// in), so which of tied hits are kept does not depend on the order they
// were offered in.
type hitHeap []hit

// worse reports whether a ranks below b.
func worse(a, b hit) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	if a.key.path != b.key.path {
		return a.key.path > b.key.path
	}
	return a.key.ord > b.key.ord
}

// offer adds x when the heap holds fewer than limit hits or x ranks above
// the worst of them, which it then replaces; true when it did.
func (h *hitHeap) offer(x hit, limit int) bool {
	switch {
	case len(*h) < limit:
		heap.Push(h, x)
	case worse((*h)[0], x):
		(*h)[0] = x
		heap.Fix(h, 0)
	default:
		return false
	}
	return true
}

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// keptComps are the components and residuals a worker's scan kept of
// the documents of the vector table it may rescore, at the query's column
// dims, in document order: each worker scans its blocks in order.
type keptComps struct {
	docs   []int
	scales []float32
	comps  []byte // per document: len(dims) components, then residuals
}

// add keeps document d, entry j of a block whose component columns are
// pieces.
func (k *keptComps) add(d int, scale float32, pieces [][]byte, j int) {
	if n := len(k.docs); n > 0 && k.docs[n-1] == d {
		return
	}
	k.docs = append(k.docs, d)
	k.scales = append(k.scales, scale)
	n := len(k.comps)
	k.comps = slices.Grow(k.comps, len(pieces))[:n+len(pieces)]
	comps := k.comps[n:]
	for i, p := range pieces {
		comps[i] = p[j]
	}
}

// keptOrRead returns the scale and components of table document d that
// some worker's scan kept, or else reads them from d's block of ct.
func keptOrRead(kept []keptComps, d int, ct *colTable, cq *vecindex.ColumnQuery) (float32, []byte, error) {
	n := len(cq.Dims)
	for _, k := range kept {
		if i, ok := slices.BinarySearch(k.docs, d); ok {
			return k.scales[i], k.comps[i*n : (i+1)*n], nil
		}
	}
	if ct == nil || d >= ct.docs {
		return 0, nil, fmt.Errorf("search snapshot: document %d is not in the vector table (run `dossier index` to rebuild it)", d)
	}
	first, _ := ct.block(d / colBlock)
	scales, pieces, _, err := ct.read(d/colBlock, cq.Dims, nil, nil)
	if err != nil {
		return 0, nil, err
	}
	var k keptComps
	k.add(d, math.Float32frombits(binary.LittleEndian.Uint32(scales[4*(d-first):])), pieces, d-first)
	return k.scales[0], k.comps, nil
}
