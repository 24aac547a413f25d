package search

import (
	"slices"
	"strings"

	"github.com/klauspost/compress/s2"

	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/store"
)

// bestLines sets each result's Line and MatchLine to its best-matching
// line: the line of the chunk's span holding the most query-term weight
// (each distinct query term's IDF once), the first of equals; a result
// whose lines hold no query term (a vector match) shows its first line
// that says something (not "/**" or "{"). Regex results keep the line
// their pattern matched. The text is the file's as indexed; a chunk with
// secrets has them masked on the line shown.
func (v *view) bestLines(rs []ranked, q Query) error {
	lt := &lineTerms{}
	if q.Mode != Regex {
		qt, st, err := v.queryTerms(q.Text)
		if err != nil {
			return err
		}
		lt = newLineTerms(qt, st)
	}
	// The results of one file one after another, so one buffer holds the
	// text of each file in turn: a query's dozen files decompressed into
	// fresh memory each were a tenth of a one-shot search's page faults.
	order := make([]int, 0, len(rs))
	for i := range rs {
		if rs[i].MatchLine == 0 { // else the regex match
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(rs[a].Path, rs[b].Path) })
	// The files' blobs, and one buffer the size of the largest: a buffer
	// grown file by file was a fresh allocation, and fresh pages, for each
	// larger one.
	raws := make([][]byte, len(order))
	size := 0
	for k, i := range order {
		if k > 0 && rs[i].Path == rs[order[k-1]].Path {
			raws[k] = raws[k-1]
			continue
		}
		if raws[k] = v.tx.RawBlob(rs[i].Path); raws[k] != nil {
			if n, err := s2.DecodedLen(raws[k]); err == nil {
				size = max(size, n)
			}
		}
	}
	buf := make([]byte, size)
	var text []byte
	var found []secrets.Finding
	ok, path := false, ""
	for k, i := range order {
		r := &rs[i]
		if r.Path != path {
			path, found, ok = r.Path, nil, false
			if raw := raws[k]; raw != nil {
				var err error
				text, err = store.DecodeBlobInto(buf, raw)
				ok = err == nil
			}
		}
		m := r.meta
		if !ok || m.StartByte < 0 || m.EndByte > len(text) || m.StartByte >= m.EndByte {
			continue // the first line stored with the chunk stays
		}
		off, n := v.bestLine(text, m.StartByte, m.EndByte, lt)
		if off < 0 {
			continue
		}
		if m.Secrets {
			if found == nil {
				found = secrets.Scan(r.Path, string(text))
			}
			r.Line = maskedLineAt(found, text, off)
		} else {
			r.Line = LineAt(text, off)
		}
		r.MatchLine = m.StartLine + n
	}
	return nil
}

// lineTerms are a query's terms as the best-line pick weighs them: each
// term's number, its IDF, and which of them the current line has shown.
type lineTerms struct {
	num  map[string]int
	idf  []float64
	seen []bool
}

func newLineTerms(qt map[string]int, st stats) *lineTerms {
	lt := &lineTerms{num: make(map[string]int, len(qt)), idf: make([]float64, 0, len(qt)), seen: make([]bool, len(qt))}
	for t := range qt {
		lt.num[t] = len(lt.idf)
		lt.idf = append(lt.idf, st.idf(t))
	}
	return lt
}

// bestLine returns the offset of the best line of text[start:end] and its
// index among the span's lines; -1 when the span has no line with a word.
// A line's weight adds each distinct query term's IDF in the order the
// terms first appear on it.
func (v *view) bestLine(text []byte, start, end int, lt *lineTerms) (int, int) {
	best, bestN, bestW := -1, 0, 0.0
	firstWord, firstN := -1, 0
	span := string(text[start:end]) // one copy for the span, not one a line
	w := 0.0
	weigh := func(t string) {
		if i, ok := lt.num[t]; ok && !lt.seen[i] {
			lt.seen[i] = true
			w += lt.idf[i]
		}
	}
	n := 0
	for at := 0; at < len(span); n++ {
		stop := strings.IndexByte(span[at:], '\n')
		if stop < 0 {
			stop = len(span)
		} else {
			stop += at
		}
		line := span[at:stop]
		if firstWord < 0 && saysSomething(line) {
			firstWord, firstN = start+at, n
		}
		if len(lt.idf) > 0 {
			clear(lt.seen)
			w = 0
			v.e.tok.Each(line, weigh)
			if w > bestW {
				best, bestN, bestW = start+at, n, w
			}
		}
		at = stop + 1
	}
	if best < 0 {
		return firstWord, firstN
	}
	return best, bestN
}

// saysSomething reports whether a line holds a word other than comment
// markers: not blank, "/**", "*", "{" or `"""`.
func saysSomething(line string) bool {
	return strings.IndexFunc(line, func(r rune) bool {
		return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0x80
	}) >= 0
}
