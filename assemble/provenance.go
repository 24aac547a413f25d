package assemble

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Provenance comments are "<!-- key=value; key=value -->" on one line. A
// value comes from file names, symbols and tags, so it is percent-encoded
// where it could end the comment, start another key or break the line:
// '%' itself, ';', '<', '>', control characters (newlines among them),
// the Unicode line and paragraph separators, and white space at either end
// (which a reader trims). Everything else, '=' and ':' included, is left
// as written, so seed 003's plain comments are still what dossier writes
// for ordinary paths and still read back the same.

// ProvValue encodes v for a provenance comment.
func ProvValue(v string) string { return provEscape(v, "") }

// ProvTag encodes one tag of a "tags=a,b" value: as ProvValue, and ','.
func ProvTag(t string) string { return provEscape(t, ",") }

// ParseProvValue decodes a value written by ProvValue or ProvTag. A '%'
// not followed by two hex digits is kept as it is, so values written
// before the encoding existed read back unchanged unless they hold a
// "%XX" sequence of their own.
func ParseProvValue(v string) string {
	if !strings.Contains(v, "%") {
		return v
	}
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); i++ {
		if v[i] == '%' && i+2 < len(v) && isHex(v[i+1]) && isHex(v[i+2]) {
			b.WriteByte(unhex(v[i+1])<<4 | unhex(v[i+2]))
			i += 2
			continue
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// HeadingText makes s safe as the rest of one heading line ("## Evidence:
// " + s): control characters and line separators are percent-encoded, so
// a file name cannot end the heading or start another. '%' is left alone,
// so encoding twice changes nothing.
func HeadingText(s string) string {
	return escapeWhere(s, func(_ int, r rune, _ int) bool { return breaksLine(r) })
}

func breaksLine(r rune) bool {
	return r < 0x20 || r == 0x7f || r == 0x85 || r == '\u2028' || r == '\u2029'
}

func provEscape(v, extra string) string {
	need := func(i int, r rune, size int) bool {
		switch {
		case breaksLine(r), r == '%', r == ';', r == '<', r == '>', strings.ContainsRune(extra, r):
			return true
		case unicode.IsSpace(r):
			return i == 0 || i+size == len(v) // a reader trims spaces at the ends
		}
		return false
	}
	return escapeWhere(v, need)
}

// escapeWhere percent-encodes the runes need picks. Bytes that are not
// UTF-8 are copied as they are, so decoding gives back v exactly.
func escapeWhere(v string, need func(i int, r rune, size int) bool) string {
	var b strings.Builder
	started := false
	for i := 0; i < len(v); {
		r, size := utf8.DecodeRuneInString(v[i:])
		switch {
		case need(i, r, size):
			if !started {
				started = true
				b.Grow(len(v) + 8)
				b.WriteString(v[:i])
			}
			writeEscaped(&b, v[i:i+size])
		case started:
			b.WriteString(v[i : i+size])
		}
		i += size
	}
	if !started {
		return v
	}
	return b.String()
}

// writeEscaped writes every byte of s as %XX.
func writeEscaped(b *strings.Builder, s string) {
	const digits = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		b.WriteByte('%')
		b.WriteByte(digits[s[i]>>4])
		b.WriteByte(digits[s[i]&15])
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
