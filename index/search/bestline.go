package search

import (
	"strings"

	"github.com/dossierhq/dossier/index/secrets"
)

// bestLines sets each result's Line and MatchLine to its best-matching
// line: the line of the chunk's span holding the most query-term weight
// (each distinct query term's IDF once), the first of equals; a result
// whose lines hold no query term (a vector match) shows its first line
// that says something (not "/**" or "{"). Regex results keep the line
// their pattern matched. The text is the file's as indexed; a chunk with
// secrets has them masked on the line shown.
func (v *view) bestLines(rs []ranked, q Query) error {
	var qt map[string]int
	var st stats
	if q.Mode != Regex {
		var err error
		if qt, st, err = v.queryTerms(q.Text); err != nil {
			return err
		}
	}
	type file struct {
		text  []byte
		found []secrets.Finding
		ok    bool
	}
	files := map[string]*file{}
	for i := range rs {
		r := &rs[i]
		if r.MatchLine > 0 {
			continue // the regex match
		}
		fl := files[r.Path]
		if fl == nil {
			fl = &file{}
			fl.text, fl.ok = v.tx.Blob(r.Path)
			files[r.Path] = fl
		}
		m := r.meta
		if !fl.ok || m.StartByte < 0 || m.EndByte > len(fl.text) || m.StartByte >= m.EndByte {
			continue // the first line stored with the chunk stays
		}
		off, n := v.bestLine(fl.text, m.StartByte, m.EndByte, qt, st)
		if off < 0 {
			continue
		}
		if m.Secrets {
			if fl.found == nil {
				fl.found = secrets.Scan(r.Path, string(fl.text))
			}
			r.Line = maskedLineAt(fl.found, fl.text, off)
		} else {
			r.Line = LineAt(fl.text, off)
		}
		r.MatchLine = m.StartLine + n
	}
	return nil
}

// bestLine returns the offset of the best line of text[start:end] and its
// index among the span's lines; -1 when the span has no line with a word.
func (v *view) bestLine(text []byte, start, end int, qt map[string]int, st stats) (int, int) {
	best, bestN, bestW := -1, 0, 0.0
	firstWord, firstN := -1, 0
	seen := map[string]bool{}
	n := 0
	for at := start; at < end; n++ {
		stop := at
		for stop < end && text[stop] != '\n' {
			stop++
		}
		line := string(text[at:stop])
		if firstWord < 0 && saysSomething(line) {
			firstWord, firstN = at, n
		}
		if len(qt) > 0 {
			clear(seen)
			w := 0.0
			v.e.tok.Each(line, func(t string) {
				if _, ok := qt[t]; ok && !seen[t] {
					seen[t] = true
					w += st.idf(t)
				}
			})
			if w > bestW {
				best, bestN, bestW = at, n, w
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
