package search

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"github.com/dossierhq/dossier/index/secrets"
	"maps"
	"math"
	"slices"
	"strings"
)

// BM25 parameters (the usual ones; field weights are folded into tf).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// stats are the corpus figures a query's weights come from, exact for the
// index as it is: the snapshot's figures without the documents of files
// changed since it was built, plus those files' own records. A query
// therefore scores the same whether the snapshot is fresh or stale.
type stats struct {
	n     float64 // documents
	avgdl float64
	// mass is the query's IDF mass: the sum of its terms' IDFs, each
	// times its count in the query, absent terms included (see textScore).
	mass  float64
	known float64           // the part of mass whose terms the index holds
	df    map[string]int    // per query term
	plist map[string][]byte // per query term, the snapshot's postings
	// dirty are the chunks of dirty files that hold a query term.
	dirty []dirtyDoc
}

// dirtyDoc is a chunk of a dirty file that holds a query term.
type dirtyDoc struct {
	key       key
	length    float64
	kind, src string
	tfs       []termTF // in term order, as the snapshot adds them up
}

type termTF struct {
	term string
	tf   int
}

func (v *view) stats(qt map[string]int) (stats, error) {
	s := stats{df: map[string]int{}, plist: map[string][]byte{}}
	docs, total := 0, int64(0)
	if v.hasSnap {
		docs, total = v.e.snap.meta.Docs, v.e.snap.meta.TotalLen
		for n := range v.dirtyNum {
			pi := getPathInfo(v.pathInfo, int(n))
			docs -= int(pi.n)
			if err := v.docsIn(int(pi.first), int(pi.n)); err != nil {
				return s, err
			}
			for d := pi.first; d < pi.first+pi.n; d++ {
				total -= int64(getDoc(v.docs, int(d)).length)
			}
		}
		dirty := v.dirtyDocs()
		b := v.tx.Batch()
		b.Postings(slices.Collect(maps.Keys(qt)))
		b.Fetch()
		for t := range qt {
			pl, err := v.tx.Postings(t)
			if err != nil {
				return s, err
			}
			if pl == nil {
				continue
			}
			df, n := binary.Uvarint(pl)
			if n <= 0 {
				return s, errRecord
			}
			s.plist[t] = pl[n:]
			gone, err := v.postingsIn(pl[n:], dirty)
			if err != nil {
				return s, err
			}
			s.df[t] = int(df) - gone
		}
	}
	// The dirty files' own records, in path order so the chunks come out
	// in the same order every time.
	for _, p := range slices.Sorted(maps.Keys(v.dirty)) {
		rec := v.tx.SearchRecord(p)
		if rec == nil {
			continue
		}
		var cur dirtyDoc
		flush := func() {
			if len(cur.tfs) > 0 {
				slices.SortFunc(cur.tfs, func(a, b termTF) int { return strings.Compare(a.term, b.term) })
				s.dirty = append(s.dirty, cur)
			}
		}
		_, err := DecodeTerms(rec, func(ord, length int, m *Meta) {
			flush()
			docs++
			total += int64(length)
			cur = dirtyDoc{key: key{p, ord}, length: float64(length), kind: m.Kind, src: m.SrcType}
		}, func(_ int, term []byte, tf int) {
			if _, ok := qt[string(term)]; ok {
				s.df[string(term)]++
				cur.tfs = append(cur.tfs, termTF{string(term), tf})
			}
		})
		if err != nil {
			return s, fmt.Errorf("search record of %s: %w", p, err)
		}
		flush()
	}
	s.n, s.avgdl = float64(max(docs, 1)), 1
	if docs > 0 {
		s.avgdl = max(float64(total)/float64(docs), 1)
	}
	// In term order, so the sums are the same bits every time.
	for _, t := range slices.Sorted(maps.Keys(qt)) {
		w := s.idf(t) * float64(qt[t])
		s.mass += w
		if s.df[t] > 0 {
			s.known += w
		}
	}
	return s, nil
}

// postingsIn counts the documents of a postings list (after its document
// frequency) that lie in runs.
func (v *view) postingsIn(pl []byte, runs []docRange) (int, error) {
	if runs == nil {
		return 0, nil
	}
	in := 0
	r := postingReader{pl: pl, nd: v.e.snap.meta.Docs, d: -1}
	rs := docRanges{rs: runs}
	for {
		d, _, _, ok := r.next()
		if !ok {
			return in, r.err
		}
		if rs.has(d) {
			in++
		}
	}
}

// idf is BM25's inverse document frequency (never negative).
func (s stats) idf(term string) float64 {
	df := float64(max(s.df[term], 1))
	return math.Log(1 + (s.n-df+0.5)/(df+0.5))
}

func (s stats) bm25(tf, dl, idf float64) float64 {
	return idf * tf * (bm25K1 + 1) / (tf + bm25K1*(1-bm25B+bm25B*dl/s.avgdl))
}

// scoreSnapshot ranks the snapshot's documents of clean files by BM25 and
// returns the best limit. It walks the query terms' postings together,
// document by document (they are in document order), so each document's
// score is complete when the walk leaves it: no accumulator per document
// of the snapshot to allocate and clear, only the heap of the best. A
// document's contributions are added in term order, as the records of
// dirty files add theirs, so the same query gives the same bits.
func (v *view) scoreSnapshot(qt map[string]int, st stats, f filter, limit int) ([]hit, error) {
	if !v.hasSnap {
		return nil, nil
	}
	nd := v.e.snap.meta.Docs
	blocked := docRanges{rs: v.blockedDocs(f)}
	okKind, okSrc := v.kindTables(f)
	var ps postingsWalk
	for _, t := range slices.Sorted(maps.Keys(qt)) {
		if pl, ok := st.plist[t]; ok {
			ps.add(postingReader{pl: pl, nd: nd, d: -1}, st.idf(t)*float64(qt[t]))
		}
	}
	if ps.err != nil {
		return nil, ps.err
	}
	// The best by path number: a path becomes a string only for those left
	// at the end (see docHit).
	h := docHeap{h: make([]docHit, 0, limit), paths: &v.e.snap.paths}
	for len(ps.heap) > 0 {
		d := ps.doc()
		skip := blocked.has(d)
		if !skip && okKind != nil {
			e, err := v.doc(d)
			if err != nil {
				return nil, err
			}
			skip = !okKind[e.kind] && !okSrc[e.src]
		}
		score, cover := 0.0, 0.0
		for len(ps.heap) > 0 && ps.doc() == d {
			tf, dl, idf := ps.take()
			if !skip {
				score += st.bm25(tf, dl, idf)
				cover += idf
			}
		}
		if ps.err != nil {
			return nil, ps.err
		}
		if skip || len(h.h) == limit && score < h.h[0].score {
			continue
		}
		e, err := v.doc(d)
		if err != nil {
			return nil, err
		}
		h.offer(docHit{score: score, path: e.path, ord: e.ordinal, cover: cover}, limit)
	}
	hits := make([]hit, 0, len(h.h))
	for _, x := range h.h {
		hits = append(hits, hit{key: key{h.paths.path(int(x.path)), int(x.ord)}, score: x.score, raw: x.score, cover: x.cover})
	}
	return hits, nil
}

// blockedDocs returns the runs of snapshot documents a query must not
// read from it: those of files changed since (read from their records
// instead) and of paths the filter drops. nil when none is.
func (v *view) blockedDocs(f filter) []docRange {
	if len(v.dirtyNum) == 0 && f.prefix == "" {
		return nil
	}
	paths := &v.e.snap.paths
	return v.pathRuns(func(n int) bool { return v.dirtyNum[uint32(n)] || !paths.hasPrefix(n, f.prefix) })
}

// kindTables maps the snapshot's kind and source-type codes to whether the
// filter keeps them; nil when it keeps everything.
func (v *view) kindTables(f filter) (okKind, okSrc *[256]bool) {
	if f.types == nil {
		return nil, nil
	}
	okKind, okSrc = new([256]bool), new([256]bool)
	for i, k := range v.e.snap.meta.Kinds {
		okKind[i] = f.types[k]
	}
	for i, s := range v.e.snap.meta.SrcTypes {
		okSrc[i] = f.types[s]
	}
	return okKind, okSrc
}

// queryTerms returns the terms of q and their corpus figures, computed once
// per query for the retrievers that share them.
func (v *view) queryTerms(q string) (map[string]int, stats, error) {
	if v.qt == nil || v.qtext != q {
		qt := v.e.queryTerms(q)
		st, err := v.stats(qt)
		if err != nil {
			return nil, stats{}, err
		}
		v.qtext, v.qt, v.qst = q, qt, st
	}
	return v.qt, v.qst, nil
}

// queryTerms returns the terms of q with their counts. A secret in the
// query is matched as the index holds it: by its hash, the rest of the
// text with it redacted.
func (e *Engine) queryTerms(q string) map[string]int {
	text, hashed := secrets.QueryTerms(q)
	qt := e.tok.Terms(text)
	for _, t := range hashed {
		qt[t]++
	}
	return qt
}

// terms returns the distinct terms of q.
func (e *Engine) terms(q string) []string { return slices.Collect(maps.Keys(e.queryTerms(q))) }

// text ranks chunks by BM25 over their weighted terms.
func (v *view) text(q string, f filter, limit int) ([]hit, error) {
	qt, st, err := v.queryTerms(q)
	if err != nil || len(qt) == 0 {
		return nil, err
	}
	hits, err := v.scoreSnapshot(qt, st, f, limit)
	if err != nil {
		return nil, err
	}
	// Files changed since the snapshot: score their own records.
	for _, d := range st.dirty {
		if !f.path(d.key.path) || !f.kind(d.kind, d.src) {
			continue
		}
		score, cover := 0.0, 0.0
		for _, t := range d.tfs {
			idf := st.idf(t.term) * float64(qt[t.term])
			score += st.bm25(float64(t.tf), d.length, idf)
			cover += idf
		}
		hits = append(hits, hit{key: d.key, score: score, raw: score, cover: cover})
	}
	hits = top(hits, limit)
	calibrateText(hits, st.mass)
	return hits, nil
}

func name(names []string, code uint8) string {
	if int(code) < len(names) {
		return names[code]
	}
	return ""
}

// top sorts hits by score (ties by path and position) and keeps n.
func top(hits []hit, n int) []hit {
	slices.SortFunc(hits, func(a, b hit) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.key.path, b.key.path); c != 0 {
			return c
		}
		return cmp.Compare(a.key.ord, b.key.ord)
	})
	if len(hits) > n {
		hits = hits[:n]
	}
	return hits
}
