package search

import (
	"slices"
	"strings"
	"unsafe"

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
	// The results of one file one after another: its blob is looked up
	// once. Each result decodes only the blocks of the file's text that
	// hold its chunk (see store.DecodeBlobRange), into one buffer: whole
	// files decompressed, up to 250 KB each, were most of the pick's time
	// and fresh pages.
	order := make([]int, 0, len(rs))
	for i := range rs {
		if rs[i].MatchLine == 0 { // else the regex match
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(rs[a].Path, rs[b].Path) })
	// Each file's blob, and one buffer for the largest range a result
	// decodes: a buffer grown result by result was a fresh allocation, and
	// fresh pages, for each larger one.
	paths := make([]string, len(order))
	for k, i := range order {
		paths[k] = rs[i].Path
	}
	b := v.tx.Batch()
	b.Blobs(slices.Compact(paths)) // in path order: a file's results are together
	b.Fetch()
	raws, sizes := make([][]byte, len(order)), make([]int, len(order))
	need := 0
	for k, i := range order {
		switch {
		case k > 0 && rs[i].Path == rs[order[k-1]].Path:
			raws[k], sizes[k] = raws[k-1], sizes[k-1]
		default:
			sizes[k] = -1 // no text, or unreadable: the stored line stays
			if raws[k] = v.tx.RawBlob(rs[i].Path); raws[k] != nil {
				if n, err := store.BlobLen(raws[k]); err == nil {
					sizes[k] = n
				}
			}
		}
		if m := rs[i].meta; sizes[k] >= 0 && m.StartByte >= 0 && m.StartByte < m.EndByte && m.EndByte <= sizes[k] {
			need = max(need, store.BlobRangeLen(sizes[k], m.StartByte, m.EndByte+1))
		}
	}
	buf := make([]byte, need)
	var whole, file []byte // the current file's whole text, once decoded
	var found []secrets.Finding
	path := ""
	for k, i := range order {
		r := &rs[i]
		raw, size := raws[k], sizes[k]
		if r.Path != path {
			path, file, found = r.Path, nil, nil
		}
		m := r.meta
		if size < 0 || m.StartByte < 0 || m.EndByte > size || m.StartByte >= m.EndByte {
			continue // the first line stored with the chunk stays
		}
		// The span and the byte after it, which ends its last line.
		text, base, err := store.DecodeBlobRange(buf, raw, m.StartByte, m.EndByte+1)
		if err != nil {
			continue
		}
		buf = text
		off, n := v.bestLine(text, m.StartByte-base, m.EndByte-base, lt)
		if off < 0 {
			continue
		}
		if m.Secrets || !lineWithin(text, off, base > 0, base+len(text) < size) {
			// The findings are the whole file's; or the line runs past
			// the blocks decoded.
			if file == nil {
				if whole, err = store.DecodeBlobInto(whole, raw); err != nil {
					continue
				}
				file = whole
			}
			text, off = file, off+base
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

// lineWithin reports whether the line holding text[off] starts and ends
// inside text, whose first byte has text before it when before is set and
// whose last has text after it when after is set.
func lineWithin(text []byte, off int, before, after bool) bool {
	start, end := lineBounds(text, off)
	return (start > 0 || !before) && (end < len(text) || !after)
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
	// The span read in place, not copied: a copy for each result's span
	// (or each line) was fresh heap pages, each a page fault in a one-shot
	// process. Nothing keeps a string of it past this call (terms are only
	// looked up), and text is not written while it runs.
	span := unsafe.String(unsafe.SliceData(text[start:end]), end-start)
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
