package search

// Typos of symbol names. fzf-style subsequence matching (fuzzySymbols)
// finds abbreviations, but scores a name against one that is the query
// itself, so a typo that drops two letters of a long name (fuzmatch for
// FuzzyMatch) scored 0.17, under the default threshold, and one that swaps
// or changes a letter (fuzzymacth) was no subsequence at all. A typo is
// scored by its edit distance instead: the optimal-string-alignment
// distance (insertions, deletions, substitutions and swaps of neighbours)
// from the query to the name, or to the name's best prefix, which finds
// FuzzyMatchV2 for fuzmatch with a score for the part left unsaid.

// typoEdits is how many edits a word of n bytes may be from a name to be a
// typo of it: none up to 4 bytes, 1 up to 7, then 2. Lucene's AUTO
// fuzziness (1 edit from 3 bytes, 2 from 6) let random letters through:
// of 300 random strings (random.Random(35), see DefaultMinScore), "pcat"
// is a typo of a field pat and "ptlisf" of psList, on the Go set's index;
// with these bounds no random string is a typo of a name on the six
// indexes measured (the Go, Python and JavaScript sets, requests, fzf and
// axios).
func typoEdits(n int) int {
	switch {
	case n <= 4:
		return 0
	case n <= 7:
		return 1
	}
	return 2
}

// typoCandidate is the cheap test a name passes before typoScore: typos
// rarely change a word's first letter, and a name shorter than the word by
// more than the edits allowed cannot be within them.
func typoCandidate(w, name string) bool {
	k := typoEdits(len(w))
	return k > 0 && len(name) > 0 && name[0] == w[0] && len(name) >= len(w)-k
}

// typoScore scores name (lower-cased) as a typo of w (lower-cased): 0
// unless w is within typoEdits of the name or of one of its prefixes, else
// scorePrefix times the share of the matched length w gets right, times
// the square of the share of the name the prefix covers. A one-letter slip
// in a name scores 0.56 for five letters and 0.63 for ten; a prefix of
// half the name a quarter of that, so that a short word a letter away from
// the start of a long name (dwet, Deterministic) is no match.
func typoScore(w, name string) float64 {
	k := typoEdits(len(w))
	if k == 0 || len(name) == 0 {
		return 0
	}
	d, at := prefixDistance(w, name, k)
	if d > k {
		return 0
	}
	cover := float64(at) / float64(len(name))
	return scorePrefix * (1 - float64(d)/float64(max(len(w), at))) * cover * cover
}

// prefixDistance returns the least optimal-string-alignment distance from
// w to a prefix of name, and that prefix's length (the longest among
// equals), or k+1 when every prefix is more than k edits away. It keeps
// three rows of the table, of len(name)+1 each.
func prefixDistance(w, name string, k int) (int, int) {
	n := len(name)
	prev2, prev, cur := make([]int, n+1), make([]int, n+1), make([]int, n+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(w); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= n; j++ {
			cost := 1
			if w[i-1] == name[j-1] {
				cost = 0
			}
			c := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && w[i-1] == name[j-2] && w[i-2] == name[j-1] {
				c = min(c, prev2[j-2]+1)
			}
			cur[j] = c
			rowMin = min(rowMin, c)
		}
		if rowMin > k {
			return k + 1, 0
		}
		prev2, prev, cur = prev, cur, prev2
	}
	best, at := k+1, 0
	for j := 0; j <= n; j++ {
		if prev[j] <= best {
			best, at = prev[j], j
		}
	}
	return best, at
}
