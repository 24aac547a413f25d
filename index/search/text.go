package search

import (
	"cmp"
	"encoding/binary"
	"fmt"
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
			for d := pi.first; d < pi.first+pi.n; d++ {
				total -= int64(getDoc(v.docs, int(d)).length)
			}
		}
		dirtyPath := v.dirtyPaths()
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
			gone, err := v.postingsIn(pl[n:], dirtyPath)
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

// dirtyPaths marks the snapshot's paths of dirty files; nil when none is.
func (v *view) dirtyPaths() []bool {
	if len(v.dirtyNum) == 0 {
		return nil
	}
	dirty := make([]bool, len(v.e.snap.paths))
	for n := range v.dirtyNum {
		dirty[n] = true
	}
	return dirty
}

// postingsIn counts the documents of a postings list (after its document
// frequency) whose path is marked in paths.
func (v *view) postingsIn(pl []byte, paths []bool) (int, error) {
	if paths == nil {
		return 0, nil
	}
	in := 0
	r := postingReader{pl: pl, nd: v.e.snap.meta.Docs, d: -1}
	for {
		d, _, ok := r.next()
		if !ok {
			return in, r.err
		}
		if paths[binary.LittleEndian.Uint32(v.docs[d*docSize:])] {
			in++
		}
	}
}

// postingReader walks a postings list (after its document frequency):
// delta-coded document numbers, each with its term frequency.
type postingReader struct {
	pl    []byte
	nd, d int // documents in the snapshot; the last document read (-1 before)
	err   error
}

// next returns the next document and its term frequency; false at the end
// of the list or on damage (err set).
func (r *postingReader) next() (int, uint64, bool) {
	if len(r.pl) == 0 {
		return 0, 0, false
	}
	delta, n := binary.Uvarint(r.pl)
	if n <= 0 {
		r.err = errRecord
		return 0, 0, false
	}
	tf, m := binary.Uvarint(r.pl[n:])
	if m <= 0 {
		r.err = errRecord
		return 0, 0, false
	}
	r.pl = r.pl[n+m:]
	if r.d < 0 {
		r.d = int(delta)
	} else {
		r.d += int(delta)
	}
	if r.d >= r.nd {
		r.err = errRecord
		return 0, 0, false
	}
	return r.d, tf, true
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
// returns the best limit. Scores accumulate in a dense array the Engine
// reuses, so a query costs a few nanoseconds per posting.
func (v *view) scoreSnapshot(qt map[string]int, st stats, f filter, limit int) ([]hit, error) {
	if !v.hasSnap {
		return nil, nil
	}
	nd := v.e.snap.meta.Docs
	blocked := v.blockedPaths(f)
	okKind, okSrc := v.kindTables(f)
	if cap(v.e.scores) < nd {
		v.e.scores = make([]float64, nd)
	}
	if cap(v.e.covers) < nd {
		v.e.covers = make([]float64, nd)
	}
	scores, covers := v.e.scores[:nd], v.e.covers[:nd]
	touched := v.e.touched[:0]
	defer func() {
		for _, d := range touched {
			scores[d], covers[d] = 0, 0
		}
		v.e.touched = touched[:0]
	}()
	// In term order: the same query adds up the same scores every time,
	// and the records of dirty files add theirs up in the same order.
	for _, t := range slices.Sorted(maps.Keys(qt)) {
		qtf := qt[t]
		pl, ok := st.plist[t]
		if !ok {
			continue
		}
		idf := st.idf(t) * float64(qtf)
		r := postingReader{pl: pl, nd: nd, d: -1}
		for {
			d, tf, ok := r.next()
			if !ok {
				if r.err != nil {
					return nil, r.err
				}
				break
			}
			e := v.docs[d*docSize : (d+1)*docSize]
			if blocked != nil && blocked[binary.LittleEndian.Uint32(e)] {
				continue
			}
			if okKind != nil && !okKind[e[12]] && !okSrc[e[13]] {
				continue
			}
			if scores[d] == 0 {
				touched = append(touched, uint32(d))
			}
			scores[d] += st.bm25(float64(tf), float64(binary.LittleEndian.Uint32(e[8:])), idf)
			covers[d] += idf
		}
	}
	h := make(hitHeap, 0, limit)
	for _, d := range touched {
		s := scores[d]
		if len(h) == limit && s < h[0].score {
			continue
		}
		doc := getDoc(v.docs, int(d))
		h.offer(hit{key: key{v.e.snap.paths[doc.path], int(doc.ordinal)}, score: s, raw: s, cover: covers[d]}, limit)
	}
	return h, nil
}

// blockedPaths marks the snapshot's paths a query must not read from it:
// files changed since (read from their records instead) and paths the
// filter drops. nil when none is.
func (v *view) blockedPaths(f filter) []bool {
	if len(v.dirtyNum) == 0 && f.prefix == "" {
		return nil
	}
	blocked := make([]bool, len(v.e.snap.paths))
	for i, p := range v.e.snap.paths {
		blocked[i] = v.dirtyNum[uint32(i)] || !f.path(p)
	}
	return blocked
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
		qt := v.e.tok.Terms(q)
		st, err := v.stats(qt)
		if err != nil {
			return nil, stats{}, err
		}
		v.qtext, v.qt, v.qst = q, qt, st
	}
	return v.qt, v.qst, nil
}

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
