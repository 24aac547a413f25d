package tokens

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizers below are hand-compiled from tiktoken's patterns, with
// the alternatives tried in order and backtracking worked out by hand. The
// patterns are those of the reference tiktoken (npm tiktoken 1.0.22, whose
// encoders/*.json carry them) and of tiktoken-go v0.10.0, which agree:
//
// cl100k_base:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// o200k_base:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|
//	\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// \s is Unicode White_Space (Go's unicode.IsSpace, Rust's \s). Under (?i),
// "s" also matches U+017F LATIN SMALL LETTER LONG S, as in Rust's regex.
// Character classes follow Go's Unicode tables; a code point assigned in a
// newer Unicode version than Go's may classify differently from the
// reference.
// Tests compare the split with regexp2's interpreter running the patterns
// on random text, and counts and ids with the reference on testdata.

// Rune classes. upper and lower are o200k's two letter-ish classes: upper
// is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}], lower is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
const (
	clsLetter = 1 << iota // \p{L}
	clsNumber             // \p{N}
	clsSpace              // \s
	clsUpper
	clsLower
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		t[r] = classify(r)
	}
	return t
}()

func classify(r rune) uint8 {
	switch {
	case unicode.IsLetter(r):
		switch {
		case unicode.Is(unicode.Ll, r):
			return clsLetter | clsLower
		case unicode.Is(unicode.Lm, r), unicode.Is(unicode.Lo, r):
			return clsLetter | clsUpper | clsLower
		default: // Lu, Lt
			return clsLetter | clsUpper
		}
	case unicode.IsMark(r):
		return clsUpper | clsLower
	case unicode.IsNumber(r):
		return clsNumber
	case unicode.IsSpace(r):
		return clsSpace
	}
	return 0
}

// at decodes the rune starting at s[i]; i must be < len(s) and s valid
// UTF-8.
func at(s string, i int) (r rune, size int, cls uint8) {
	if b := s[i]; b < utf8.RuneSelf {
		return rune(b), 1, asciiClass[b]
	}
	r, size = utf8.DecodeRuneInString(s[i:])
	return r, size, classify(r)
}

// isPrefix reports whether r matches [^\r\n\p{L}\p{N}], the optional rune
// before a word.
func isPrefix(r rune, cls uint8) bool {
	return r != '\r' && r != '\n' && cls&(clsLetter|clsNumber) == 0
}

// isPunct reports whether a rune matches [^\s\p{L}\p{N}].
func isPunct(cls uint8) bool { return cls&(clsLetter|clsNumber|clsSpace) == 0 }

// run returns the end of the run of runes starting at i whose class has a
// bit of mask.
func run(s string, i int, mask uint8) int {
	for i < len(s) {
		_, n, c := at(s, i)
		if c&mask == 0 {
			break
		}
		i += n
	}
	return i
}

// contraction returns the length of (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[i:],
// or 0. b|0x20 folds ASCII case and maps no other byte onto these letters.
func contraction(s string, i int) int {
	if i+1 >= len(s) || s[i] != '\'' {
		return 0
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return 3
		}
	}
	if strings.HasPrefix(s[i+1:], "ſ") {
		return 1 + len("ſ")
	}
	return 0
}

// nextCl100k returns the end of the cl100k_base piece starting at i.
func nextCl100k(s string, i int) int {
	r, n, c := at(s, i)
	if k := contraction(s, i); k > 0 {
		return i + k
	}
	if c&clsLetter != 0 {
		return run(s, i, clsLetter)
	}
	if i+n < len(s) && isPrefix(r, c) {
		if _, _, c2 := at(s, i+n); c2&clsLetter != 0 {
			return run(s, i+n, clsLetter)
		}
	}
	if c&clsNumber != 0 {
		return digits(s, i)
	}
	if e := punct(s, i, r, n, c); e > 0 {
		return crlfTail(s, e, false)
	}
	return spaces(s, i)
}

// nextO200k returns the end of the o200k_base piece starting at i.
func nextO200k(s string, i int) int {
	r, n, c := at(s, i)
	pre := isPrefix(r, c)
	// The four ways a word can start, in the pattern's order: the first
	// alternative with and without the prefix, then the second.
	if pre {
		if e, ok := wordLower(s, i+n); ok {
			return e + contraction(s, e)
		}
	}
	if e, ok := wordLower(s, i); ok {
		return e + contraction(s, e)
	}
	if pre {
		if e, ok := wordUpper(s, i+n); ok {
			return e + contraction(s, e)
		}
	}
	if e, ok := wordUpper(s, i); ok {
		return e + contraction(s, e)
	}
	if c&clsNumber != 0 {
		return digits(s, i)
	}
	if e := punct(s, i, r, n, c); e > 0 {
		return crlfTail(s, e, true)
	}
	return spaces(s, i)
}

// wordLower matches [upper]*[lower]+ at p. The greedy [upper]* gives back
// runes until [lower]+ can match; since upper and lower share Lm, Lo and
// M, that lands just after the last lower-class rune of the upper run,
// unless the run is followed by an Ll rune, which [lower]+ then extends.
func wordLower(s string, p int) (int, bool) {
	lastLower := -1
	for u := p; u < len(s); {
		_, n, c := at(s, u)
		if c&clsUpper == 0 {
			if c&clsLower != 0 {
				return run(s, u, clsLower), true
			}
			break
		}
		u += n
		if c&clsLower != 0 {
			lastLower = u
		}
	}
	return lastLower, lastLower >= 0
}

// wordUpper matches [upper]+[lower]* at p.
func wordUpper(s string, p int) (int, bool) {
	u := run(s, p, clsUpper)
	if u == p {
		return 0, false
	}
	return run(s, u, clsLower), true
}

// digits matches \p{N}{1,3} at i.
func digits(s string, i int) int {
	for k := 0; k < 3 && i < len(s); k++ {
		_, n, c := at(s, i)
		if c&clsNumber == 0 {
			break
		}
		i += n
	}
	return i
}

// punct matches " ?[^\s\p{L}\p{N}]+" at i, r being the rune there, and
// returns its end, or 0 when it does not match.
func punct(s string, i int, r rune, n int, c uint8) int {
	if r == ' ' && i+1 < len(s) {
		if _, _, c2 := at(s, i+1); isPunct(c2) {
			return punctRun(s, i+1)
		}
	}
	if isPunct(c) {
		return punctRun(s, i)
	}
	return 0
}

// punctRun returns the end of the run of [^\s\p{L}\p{N}] runes at i.
func punctRun(s string, i int) int {
	for i < len(s) {
		_, n, c := at(s, i)
		if !isPunct(c) {
			break
		}
		i += n
	}
	return i
}

// crlfTail matches [\r\n]* at i, or [\r\n/]* when slash is set (o200k).
func crlfTail(s string, i int, slash bool) int {
	for i < len(s) && (s[i] == '\r' || s[i] == '\n' || slash && s[i] == '/') {
		i++
	}
	return i
}

// spaces matches \s*[\r\n]+|\s+(?!\S)|\s+ at i, where s[i:] starts with
// white space (every other rune is claimed by an earlier alternative).
// \s*[\r\n]+ backtracks to the last CR or LF of the run; \s+(?!\S) gives
// back the run's last rune unless the run ends the text; \s+ is left with
// a single rune.
func spaces(s string, i int) int {
	j, afterNL, last := i, -1, 0
	for j < len(s) {
		r, n, c := at(s, j)
		if c&clsSpace == 0 {
			break
		}
		j += n
		last = n
		if r == '\r' || r == '\n' {
			afterNL = j
		}
	}
	switch {
	case j == i: // not white space after all; never loop on it
		_, n, _ := at(s, i)
		return i + n
	case afterNL >= 0:
		return afterNL
	case j == len(s):
		return j
	case j-last > i:
		return j - last
	}
	return j
}
