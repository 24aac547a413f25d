package secrets

import (
	"math/bits"
	"sort"
)

// keywords finds every occurrence of a set of words in a text, overlapping
// ones included, with the text's ASCII capitals matched as lower case and
// every other byte as itself: what an Aho-Corasick automaton of the words
// finds in the text lower-cased byte for byte, in position order.
//
// It is not an automaton because building one cost more than most scans:
// BobuSumisu/aho-corasick (gitleaks' own) took 16-21 ms to build the trie
// of the default rules' 244 keywords in a fresh process, 6-10 ms warm
// (BenchmarkNewKeywordsTrie; a dense [256]int64 table per state),
// and 25 ms to decode an encoded one; petar-dambovaliev/aho-corasick's DFA
// ~20 ms, its NFA 2.7 ms but matched 3x slower than the trie. Every
// one-shot process that scanned a text paid that. The words are few and
// short: a bitset of their first two bytes rejects most positions, and
// the few words that begin with a position's two bytes are compared there.
// It is built in 20-60 µs (BenchmarkNewKeywords) and finds the keywords
// about twice as fast as the trie (BenchmarkKeywords, BenchmarkKeywordsTrie).
type keywords struct {
	// long are the words of two bytes or more, sorted; longIdx their
	// indexes in the words given.
	long    []string
	longIdx []int
	// pairs has bit b0<<8|b1 set when a long word begins with b0 b1; rank
	// counts the bits set in the words of pairs before each; from[r] is
	// the first long word of the r-th pair set (from[r+1] is past its
	// last).
	pairs [1024]uint64
	rank  [1024]uint16
	from  []int
	// short has bit b set when the word of index shortIdx[b] is the one
	// byte b.
	short    [4]uint64
	shortIdx map[byte]int
}

// newKeywords indexes words, which must be distinct and non-empty.
func newKeywords(words []string) *keywords {
	k := &keywords{}
	order := make([]int, 0, len(words))
	for i, w := range words {
		if len(w) == 1 {
			if k.shortIdx == nil {
				k.shortIdx = map[byte]int{}
			}
			k.short[w[0]>>6] |= 1 << (w[0] & 63)
			k.shortIdx[w[0]] = i
			continue
		}
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool { return words[order[a]] < words[order[b]] })
	k.long, k.longIdx = make([]string, len(order)), order
	last := -1
	for j, i := range order {
		w := words[i]
		k.long[j] = w
		if p := int(w[0])<<8 | int(w[1]); p != last {
			// Sorted words with the same two first bytes are adjacent,
			// and pairs sort as the words do.
			k.pairs[p>>6] |= 1 << (p & 63)
			k.from = append(k.from, j)
			last = p
		}
	}
	k.from = append(k.from, len(k.long))
	n := 0
	for i, w := range k.pairs {
		k.rank[i] = uint16(n)
		n += bits.OnesCount64(w)
	}
	return k
}

// each calls f with the position and index of every word in text, in
// position order (words at one position in sorted order); f returning false
// stops it.
func (k *keywords) each(text string, f func(pos, word int) bool) {
	hasShort := k.shortIdx != nil
	if len(text) == 0 {
		return
	}
	next := lowerASCII[text[0]]
	for i := 0; i < len(text); i++ {
		c := next
		if hasShort && k.short[c>>6]&(1<<(c&63)) != 0 {
			if !f(i, k.shortIdx[c]) {
				return
			}
		}
		if i+1 == len(text) {
			return
		}
		next = lowerASCII[text[i+1]]
		p := int(c)<<8 | int(next)
		w, bit := k.pairs[p>>6], uint64(1)<<(p&63)
		if w&bit == 0 {
			continue
		}
		r := int(k.rank[p>>6]) + bits.OnesCount64(w&(bit-1))
		for j := k.from[r]; j < k.from[r+1]; j++ {
			if w := k.long[j]; hasFoldedPrefix(text[i:], w) && !f(i, k.longIdx[j]) {
				return
			}
		}
	}
}

// any reports whether one of the words occurs in text.
func (k *keywords) any(text string) bool {
	found := false
	k.each(text, func(int, int) bool { found = true; return false })
	return found
}

// hasFoldedPrefix reports whether s, ASCII letters lower-cased, begins with
// w past w's first two bytes (which the caller matched).
func hasFoldedPrefix(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for i := 2; i < len(w); i++ {
		if lowerASCII[s[i]] != w[i] {
			return false
		}
	}
	return true
}

// lowerASCII maps each byte to itself, ASCII capitals to their lower case.
var lowerASCII = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()
