package search

import (
	"encoding/binary"
	"encoding/hex"
	"strings"
)

// Near-duplicate chunks (translations of one language file, vendored or
// generated copies, one function's per-platform variants) are folded into
// one result. Two chunks are near-duplicates when their skeletons share
// most of their 3-shingles (Jaccard similarity at least nearDupJaccard).
// A skeleton is the chunk's words and literals with comments left out and
// every string literal that is not a bare word (a key, a path, a name)
// replaced by one placeholder: the text of a translation is all such
// literals, so lang/fr/auth.php has the skeleton of lang/en/auth.php
// (Jaccard 0.70-1.00 over BookStack's 48 translations of it, 0.00-0.04
// against the other language files), where plain token 5-shingles see
// two different texts (0.01). Each chunk's signature is computed once, at
// index time: sigSize one-byte min-hashes of its shingle set.

// Near-duplicate parameters. Signatures are stored in the index: a change
// to how they are made (shingleLen, sigSize, minShingles, the skeleton)
// needs a new record version, or old indexes keep the old ones.
const (
	shingleLen     = 3
	sigSize        = 32
	minShingles    = 8 // fewer make too noisy a set to compare
	nearDupJaccard = 0.6
	maxLiteral     = 40 // a longer literal is text, not a key
)

// mults are the odd multipliers of the signature's hash functions: min-hash
// i of a shingle hashed to x is the minimum of x·mults[i] (mod 2⁶⁴).
var mults = func() [sigSize]uint64 {
	var m [sigSize]uint64
	x := uint64(0x9e3779b97f4a7c15)
	for i := range m {
		x = splitmix(x)
		m[i] = x | 1
	}
	return m
}()

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// signature returns the min-hash signature of text's skeleton; nil when
// it has fewer than minShingles shingles.
func signature(text string) []byte {
	var mins [sigSize]uint64
	for i := range mins {
		mins[i] = ^uint64(0)
	}
	var window [shingleLen]uint64
	tokens, n := 0, 0
	skeleton(text, func(tok uint64) {
		copy(window[:], window[1:])
		window[shingleLen-1] = tok
		if tokens++; tokens < shingleLen {
			return
		}
		x := window[0]
		for _, t := range window[1:] {
			x = splitmix(x ^ t)
		}
		n++
		for i, m := range mults {
			if h := x * m; h < mins[i] {
				mins[i] = h
			}
		}
	})
	if n < minShingles {
		return nil
	}
	sig := make([]byte, sigSize)
	for i, m := range mins {
		sig[i] = byte(m >> 32)
	}
	return sig
}

// similarity estimates the Jaccard similarity of the shingle sets two
// signatures were made from; 0 when either has none. One-byte min-hashes
// of different shingles agree by chance once in 256 times, which the
// estimate takes out.
func similarity(a, b []byte) float64 {
	if len(a) != sigSize || len(b) != sigSize {
		return 0
	}
	same := 0
	for i := range a {
		if a[i] == b[i] {
			same++
		}
	}
	const chance = 1.0 / 256
	return max(0, (float64(same)/sigSize-chance)/(1-chance))
}

// skeleton calls fn with the hash of each token of text's skeleton (see
// above): words, bare-word literals, a placeholder for other literals; no
// comments ("//", "/* */", "#" to the end of the line).
func skeleton(text string, fn func(uint64)) {
	placeholder := hashToken("\x00")
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(text) && text[j] != c && (c == '`' || text[j] != '\n') {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			lit := text[i+1 : min(j, len(text))]
			if bareWord(lit) {
				fn(hashToken(lit))
			} else {
				fn(placeholder)
			}
			i = j + 1
		case c == '/' && i+1 < len(text) && text[i+1] == '/', c == '#':
			i = lineEnd(text, i)
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			if j := strings.Index(text[i+2:], "*/"); j >= 0 {
				i += 2 + j + 2
			} else {
				i = len(text)
			}
		case isWordByte(c):
			j := i
			for j < len(text) && isWordByte(text[j]) {
				j++
			}
			fn(hashToken(text[i:j]))
			i = j
		default:
			i++
		}
	}
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c >= 0x80
}

// bareWord reports whether a literal is a key, name or path: ASCII
// letters, digits and _ . : / - only, and short.
func bareWord(s string) bool {
	if s == "" || len(s) > maxLiteral {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '/' || c == '-') {
			return false
		}
	}
	return true
}

// hashToken is FNV-1a.
func hashToken(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

func lineEnd(s string, i int) int {
	for i < len(s) && s[i] != '\n' {
		i++
	}
	return i
}

// contentHash is the first 8 bytes of a chunk's content hash (sha256 of its
// normalized text, hex): equal for identical content.
func contentHash(hexHash string) uint64 {
	b, err := hex.DecodeString(hexHash)
	if err != nil || len(b) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}
