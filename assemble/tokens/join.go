package tokens

import (
	"unicode"
	"unicode/utf8"
)

// Joinable reports whether Count(a+b) == Count(a)+Count(b) is guaranteed
// for both o200k_base and cl100k_base, so an assembler may add up cached
// counts of segments instead of counting their concatenation. It holds when
// a or b is empty, or when
//
//   - a ends with "\n" or "\r",
//   - b does not start with "/", and
//   - the white space b starts with, if any, holds no "\n" or "\r".
//
// Why: tiktoken encodes each pre-tokenizer piece on its own, so counts add
// up when no piece crosses the boundary and no piece of a changes for
// seeing b. The patterns (see pretoken.go) look past a piece only through
// greedy runs, and the only runs that can pass a trailing CR or LF are
// white space runs and the [\r\n]* ([\r\n/]* in o200k) tail after
// punctuation; letters, digits, contractions and the optional rune before
// a word ([^\r\n\p{L}\p{N}]) all stop at it. The tail stops at b's first
// rune unless it is CR, LF or "/". A white space run through a's end and
// into b's leading white space is cut by \s*[\r\n]+ after its last CR or
// LF, which is a's last byte when b's leading white space has none; the
// lookahead in \s+(?!\S) is never reached because \s*[\r\n]+ matches
// first. So the pieces of a+b are those of a followed by those of b. Bytes
// are split the same way too: a's last byte is ASCII, so no invalid UTF-8
// sequence spans the boundary.
//
// Joinable is sufficient, not necessary: "x\n" + "/y" does add up in
// o200k_base, but "}\n" + "/y" does not ("}\n/" is one piece), and telling
// them apart needs a's last piece. The bytes/4 estimate is never additive;
// summing estimates over-counts by less than one token per segment.
func Joinable(a, b string) bool {
	if a == "" || b == "" {
		return true
	}
	if last := a[len(a)-1]; last != '\n' && last != '\r' {
		return false
	}
	if b[0] == '/' {
		return false
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRuneInString(b[i:])
		if r == '\n' || r == '\r' {
			return false
		}
		if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	return true
}
