// Package terms turns code and prose into search terms: identifiers are
// split at camelCase, snake_case and acronym boundaries, lower-cased and
// stemmed, and a split identifier also yields its joined form, so both
// "read file" and "ReadFile" find func ReadFile. Index and query use the
// same Tokenizer, so whatever a query is split into, the index was too.
package terms

import (
	"strings"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Tokenizer splits text into terms. It caches stems, so keep one per
// goroutine; it is not safe for concurrent use.
type Tokenizer struct {
	stems map[string]string
	buf   []byte
	parts []span

	// words caches the terms of whole words, once a tokenizer that
	// CacheWords was called on has seen enough of them (see Each): most
	// words of code repeat, and one lookup then replaces splitting,
	// lower-casing and a stem lookup per part in a map too large for the
	// CPU's caches.
	words      []wordTerms
	cacheWords bool
	seen       int      // words tokenized before the cache was made
	out        []string // the terms of the word being cached
}

// wordTerms is a cached word and its terms, in the order word emits them.
// The word is held in the entry itself, so a lookup reads one place in
// memory, not a string elsewhere on the heap; longer words bypass the
// cache.
type wordTerms struct {
	n     uint8 // the word's length, 0 for an empty entry
	word  [maxCachedWord]byte
	terms []string
}

// maxCachedWord is the longest word the cache holds.
const maxCachedWord = 23

// Word cache sizing: a direct-mapped table of cacheSize entries (1.5 MB),
// made after cacheAfter words.
const (
	cacheBits  = 15
	cacheSize  = 1 << cacheBits
	cacheAfter = 4096
)

type span struct{ start, end int }

// New returns a Tokenizer. Its stem cache starts with room for the stop
// words and grows with use: a query stems a handful of words, and a cache
// sized for an indexer's thousands was a tenth of a one-shot search's
// fresh memory.
func New() *Tokenizer {
	t := &Tokenizer{stems: make(map[string]string, len(stop)+64)}
	t.seed()
	return t
}

// CacheWords lets t keep the terms of the words it splits, once it has
// split cacheAfter of them: for an indexer's tokenizer, which splits every
// word of a tree. A searcher's does not: a query's best lines may split a
// few thousand words, not enough to repay the table.
func (t *Tokenizer) CacheWords() { t.cacheWords = true }

// seed puts the stop words in the stem cache, as stemming to nothing: one
// lookup per word then answers both questions.
func (t *Tokenizer) seed() {
	for w := range stop {
		t.stems[w] = ""
	}
}

// maxStems bounds the stem cache; past it the cache starts over.
const maxStems = 1 << 18

// Each calls fn with every term of text, in order, repeats included. The
// string passed to fn is only valid during the call unless fn copies it
// (map keys built with string(...) do).
func (t *Tokenizer) Each(text string, fn func(term string)) {
	if t.words == nil {
		t.eachUncached(text, fn)
		return
	}
	i := 0
	for i < len(text) {
		if !wordByte[text[i]] {
			i++
			continue
		}
		// FNV-1a over the word's bytes picks its cache slot.
		h := uint64(14695981039346656037)
		j := i
		for j < len(text) && wordByte[text[j]] {
			h = (h ^ uint64(text[j])) * 1099511628211
			j++
		}
		w := text[i:j]
		i = j
		if len(w) > maxCachedWord {
			t.word(w, fn)
			continue
		}
		e := &t.words[(h^h>>32)&(cacheSize-1)]
		if int(e.n) != len(w) || string(e.word[:len(w)]) != w {
			t.out = t.out[:0]
			t.word(w, t.collect)
			e.n = uint8(copy(e.word[:], w))
			e.terms = append(e.terms[:0], t.out...)
		}
		for _, term := range e.terms {
			fn(term)
		}
	}
}

// collect appends a term of the word being cached; the joined form is a
// fresh string already, and stems are the stem cache's own.
func (t *Tokenizer) collect(term string) { t.out = append(t.out, term) }

// eachUncached is Each before the word cache exists; it makes the cache
// once the tokenizer has seen cacheAfter words.
func (t *Tokenizer) eachUncached(text string, fn func(term string)) {
	i := 0
	for i < len(text) {
		c := text[i]
		if !isWord(c) {
			i++
			continue
		}
		j := i
		for j < len(text) && isWord(text[j]) {
			j++
		}
		t.word(text[i:j], fn)
		t.seen++
		i = j
	}
	if t.cacheWords && t.seen >= cacheAfter {
		t.words = make([]wordTerms, cacheSize)
	}
}

// wordByte is isWord as a table.
var wordByte = func() (tab [256]bool) {
	for c := range tab {
		tab[c] = isWord(byte(c))
	}
	return tab
}()

// Terms returns the terms of text with their counts.
func (t *Tokenizer) Terms(text string) map[string]int {
	m := map[string]int{}
	t.Each(text, func(s string) { m[s]++ })
	return m
}

// Count clears m and fills it with the terms of text and their counts.
func (t *Tokenizer) Count(m map[string]int, text string) {
	clear(m)
	t.Each(text, func(s string) { m[s]++ })
}

// isWord reports whether c can be part of an identifier. Bytes of multi-byte
// UTF-8 sequences count as word bytes, so non-ASCII words stay whole.
func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// word emits the parts of one identifier-like word and, when it has more
// than one, the joined whole.
func (t *Tokenizer) word(w string, fn func(string)) {
	if len(w) > 64 || !utf8.ValidString(w) {
		return // hashes, base64 and binary noise
	}
	t.parts = t.parts[:0]
	start := -1
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c == '_' {
			if start >= 0 {
				t.parts = append(t.parts, span{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := w[i-1]
		switch {
		case isUpper(c) && (isLower(prev) || isDigit(prev)):
			// fooBar, utf8Valid
			t.parts = append(t.parts, span{start, i})
			start = i
		case isUpper(prev) && isUpper(c) && i+1 < len(w) && isLower(w[i+1]):
			// HTTPRequest: the last capital starts the next part.
			t.parts = append(t.parts, span{start, i})
			start = i
		}
	}
	if start >= 0 {
		t.parts = append(t.parts, span{start, len(w)})
	}
	emitted := 0
	for _, p := range t.parts {
		if t.emit(w[p.start:p.end], fn) {
			emitted++
		}
	}
	if len(t.parts) > 1 && emitted > 0 {
		// The joined identifier, unstemmed: ReadFile -> "readfile".
		t.buf = t.buf[:0]
		for _, p := range t.parts {
			t.buf = appendLower(t.buf, w[p.start:p.end])
		}
		if len(t.buf) <= 40 {
			fn(string(t.buf))
		}
	}
}

// emit lower-cases, filters and stems one part.
func (t *Tokenizer) emit(p string, fn func(string)) bool {
	if len(p) < 2 && !isDigit(p[0]) {
		return false
	}
	if allDigits(p) && len(p) > 4 {
		return false // long numbers are noise for search
	}
	t.buf = appendLower(t.buf[:0], p)
	if s, ok := t.stems[string(t.buf)]; ok {
		if s == "" {
			return false // a stop word
		}
		fn(s)
		return true
	}
	low := string(t.buf)
	s := low
	if len(low) > 3 && !allDigits(low) && isLower(low[0]) {
		s = english.Stem(low, false)
	}
	if len(t.stems) >= maxStems {
		clear(t.stems)
		t.seed()
	}
	t.stems[low] = s
	fn(s)
	return true
}

func appendLower(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isUpper(c) {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// stop are English function words that carry no meaning in a query or a
// comment. Code keywords are left to IDF, which gives them little weight.
var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does
		for from had has have he her his how i in into is it its may might must of on or our
		she should so than that the their them then there these they this those to too was
		we were what when where which while who whom why will with would you your`) {
		m[w] = true
	}
	return m
}()
