// Package termsafe makes text from files safe to print on a terminal.
//
// A file's name or content can hold bytes a terminal acts on: ESC starts a
// sequence that can clear the screen, retitle the window or write the
// clipboard (OSC 52), C1 controls such as U+009B do the same in one rune, a
// bare carriage return or backspace overwrites what was printed, BEL rings.
// termsafe shows each such byte or rune as an escape in the style of Go's
// strconv.Quote instead: ESC as \x1b, BEL as \a, CR as \r, U+009B as
// \u009b, an invalid UTF-8 byte as \xff. The rest of a sequence is then
// plain text ("\x1b[2J" prints as the six characters \x1b[2J), so no
// parsing of sequences is needed and nothing is lost from sight.
//
// What is escaped: C0 controls except newline and tab, DEL, C1 controls,
// invalid UTF-8, and the Unicode bidirectional embeddings, overrides and
// isolates (U+202A–U+202E, U+2066–U+2069), which reorder what a terminal
// shows (CVE-2021-42574). A carriage return right before a newline is
// dropped, since it looks the same. Everything else, backslashes included,
// is kept as it is; the result is therefore not reversible, but escaping
// is idempotent: String(String(s)) == String(s).
//
// Only what goes to a terminal is escaped: content written to a pipe or a
// file must stay byte-exact, and callers decide (see Writer).
package termsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// String returns s with control characters, escape sequences, invalid
// UTF-8 and bidi controls escaped, keeping newlines and tabs.
func String(s string) string { return escape(s, false) }

// Line is String for a field shown on one line (a status line, a list
// row, a title): newlines and tabs are escaped too, as \n and \t.
func Line(s string) string { return escape(s, true) }

// Safe reports whether String would return s unchanged.
func Safe(s string) bool { return safe(s, false) }

// safe is the fast path: most text has nothing to escape.
func safe(s string, line bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && (line || (c != '\n' && c != '\t'))) || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || control(r) {
			return false
		}
		i += n
	}
	return true
}

func escape(s string, line bool) string {
	if safe(s, line) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '\r' && !line && i+1 < len(s) && s[i+1] == '\n':
				// CRLF looks like LF on a terminal.
			case (c == '\n' || c == '\t') && !line:
				b.WriteByte(c)
			case c < 0x20 || c == 0x7f:
				b.WriteString(byteEscape(c))
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(byteEscape(c))
		case control(r):
			b.WriteString(`\u`)
			hex := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(hex)))
			b.WriteString(hex)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// control reports the runes beyond ASCII that termsafe escapes.
func control(r rune) bool {
	return (r >= 0x80 && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// byteEscape is the escape of one ASCII control or invalid byte.
func byteEscape(c byte) string {
	switch c {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	const hexDigits = "0123456789abcdef"
	return `\x` + string([]byte{hexDigits[c>>4], hexDigits[c&0xf]})
}
