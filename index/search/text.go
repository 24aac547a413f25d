package search

import (
	"cmp"
	"encoding/binary"
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

// text ranks chunks by BM25 over their weighted terms.
func (v *view) text(q string, f filter, limit int) ([]hit, error) {
	qt := v.e.tok.Terms(q)
	if len(qt) == 0 {
		return nil, nil
	}
	st := v.stats(qt)
	kinds, srcs := v.e.snap.meta.Kinds, v.e.snap.meta.SrcTypes
	paths := v.e.snap.paths
	allowed := make(map[uint32]bool) // path numbers that pass the filter, by first sight
	scores := map[uint32]float64{}
	for t, qtf := range qt {
		pl, ok := st.plist[t]
		if !ok {
			continue
		}
		idf := st.idf(t) * float64(qtf)
		var d uint64
		first := true
		for len(pl) > 0 {
			delta, n := binary.Uvarint(pl)
			if n <= 0 {
				return nil, errRecord
			}
			pl = pl[n:]
			tf, m := binary.Uvarint(pl)
			if m <= 0 {
				return nil, errRecord
			}
			pl = pl[m:]
			if first {
				d, first = delta, false
			} else {
				d += delta
			}
			if int(d) >= v.e.snap.meta.Docs {
				return nil, errRecord
			}
			doc := getDoc(v.docs, int(d))
			if v.dirtyNum[doc.path] {
				continue
			}
			ok, seen := allowed[doc.path]
			if !seen {
				ok = int(doc.path) < len(paths) && f.path(paths[doc.path])
				allowed[doc.path] = ok
			}
			if !ok || f.types != nil && !f.kind(name(kinds, doc.kind), name(srcs, doc.src)) {
				continue
			}
			scores[uint32(d)] += st.bm25(float64(tf), float64(doc.length), idf)
		}
	}
	var hits []hit
	for d, s := range scores {
		doc := getDoc(v.docs, int(d))
		hits = append(hits, hit{key: key{paths[doc.path], int(doc.ordinal)}, score: s})
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
