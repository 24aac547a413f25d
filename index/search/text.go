package search

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"maps"
	"math"
	"slices"
)

// BM25 parameters (the usual ones; field weights are folded into tf).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// stats are the corpus figures a query's weights come from.
type stats struct {
	n     float64 // documents
	avgdl float64
	df    map[string]int // per query term, from the snapshot
	plist map[string][]byte
}

func (v *view) stats(qt map[string]int) stats {
	s := stats{n: float64(max(v.e.snap.meta.Docs, 1)), avgdl: 1, df: map[string]int{}, plist: map[string][]byte{}}
	if v.e.snap.meta.Docs > 0 {
		s.avgdl = max(float64(v.e.snap.meta.TotalLen)/float64(v.e.snap.meta.Docs), 1)
	}
	for t := range qt {
		pl := v.tx.Postings(t)
		if pl == nil {
			continue
		}
		df, n := binary.Uvarint(pl)
		if n <= 0 {
			continue
		}
		s.df[t] = int(df)
		s.plist[t] = pl[n:]
	}
	return s
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
	scores := v.e.scores[:nd]
	touched := v.e.touched[:0]
	defer func() {
		for _, d := range touched {
			scores[d] = 0
		}
		v.e.touched = touched[:0]
	}()
	// In term order: the same query adds up the same scores every time.
	for _, t := range slices.Sorted(maps.Keys(qt)) {
		qtf := qt[t]
		pl, ok := st.plist[t]
		if !ok {
			continue
		}
		idf := st.idf(t) * float64(qtf)
		d := -1
		for len(pl) > 0 {
			delta, n := binary.Uvarint(pl)
			if n <= 0 {
				return nil, errRecord
			}
			tf, m := binary.Uvarint(pl[n:])
			if m <= 0 {
				return nil, errRecord
			}
			pl = pl[n+m:]
			if d < 0 {
				d = int(delta)
			} else {
				d += int(delta)
			}
			if d >= nd {
				return nil, errRecord
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
		}
	}
	h := make(hitHeap, 0, limit)
	var worst float64
	for _, d := range touched {
		s := scores[d]
		if len(h) == limit && s <= worst {
			continue
		}
		doc := getDoc(v.docs, int(d))
		k := key{v.e.snap.paths[doc.path], int(doc.ordinal)}
		if len(h) < limit {
			heap.Push(&h, hit{key: k, score: s})
		} else {
			h[0] = hit{key: k, score: s}
			heap.Fix(&h, 0)
		}
		worst = h[0].score
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
func (v *view) queryTerms(q string) (map[string]int, stats) {
	if v.qt == nil || v.qtext != q {
		v.qtext, v.qt = q, v.e.tok.Terms(q)
		v.qst = v.stats(v.qt)
	}
	return v.qt, v.qst
}

// text ranks chunks by BM25 over their weighted terms.
func (v *view) text(q string, f filter, limit int) ([]hit, error) {
	qt, st := v.queryTerms(q)
	if len(qt) == 0 {
		return nil, nil
	}
	hits, err := v.scoreSnapshot(qt, st, f, limit)
	if err != nil {
		return nil, err
	}
	// Files changed since the snapshot: score their own records.
	for p := range v.dirty {
		rec := v.tx.SearchRecord(p)
		if rec == nil || !f.path(p) {
			continue
		}
		var cur struct {
			ok     bool
			length float64
			score  float64
			ord    int
		}
		flush := func() {
			if cur.ok && cur.score > 0 {
				hits = append(hits, hit{key: key{p, cur.ord}, score: cur.score})
			}
		}
		_, err := DecodeTerms(rec, func(ord, length int, m *Meta) {
			flush()
			cur.ok, cur.length, cur.score, cur.ord = f.kind(m.Kind, m.SrcType), float64(length), 0, ord
		}, func(_ int, term []byte, tf int) {
			if qtf, ok := qt[string(term)]; ok && cur.ok {
				cur.score += st.bm25(float64(tf), cur.length, st.idf(string(term))*float64(qtf))
			}
		})
		if err != nil {
			return nil, err
		}
		flush()
	}
	return top(hits, limit), nil
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
