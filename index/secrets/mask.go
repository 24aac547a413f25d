package secrets

import (
	"strings"
	"unicode/utf8"

	"github.com/dossierhq/dossier/store"
)

// Redact returns text with every finding's secret replaced by its Marker:
// what leaves the machine. Findings hold byte ranges of text, in order (as
// Scan returns them); ranges outside text are ignored.
func Redact(text string, fs []Finding) string { return replace(text, fs, false) }

// Mask is Redact for what a user reads on screen: the secret's first four
// characters stay, so a leaked key can still be recognised and removed
// ("AKIA…[REDACTED:aws-access-token]").
func Mask(text string, fs []Finding) string { return replace(text, fs, true) }

// keep is how many characters Mask leaves of a secret long enough to spare
// them.
const keep = 4

func replace(text string, fs []Finding, hint bool) string {
	if len(fs) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, f := range fs {
		if f.Start < at || f.End > len(text) || f.Start >= f.End {
			continue
		}
		b.WriteString(text[at:f.Start])
		if secret := text[f.Start:f.End]; hint && secret[0] != sub && utf8.RuneCountInString(secret) >= 3*keep {
			n := 0
			for range keep {
				_, size := utf8.DecodeRuneInString(secret[n:])
				n += size
			}
			b.WriteString(secret[:n])
			b.WriteString("…")
		}
		b.WriteString(Marker(f.Rule))
		at = f.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// Shift returns the findings that fall inside text[from:to], with ranges
// made relative to from and lines to the line holding from (fromLine, the
// 1-based line of from): the findings of a chunk out of its file's.
func Shift(fs []Finding, from, to, fromLine int) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.End <= from || f.Start >= to {
			continue
		}
		out = append(out, Finding{Rule: f.Rule, Line: f.Line - fromLine + 1,
			Start: max(f.Start, from) - from, End: min(f.End, to) - from})
	}
	return out
}

// OfChunk is a chunk's findings relative to its artifact (the chunk's span
// of the blob, or its outline's text).
func OfChunk(c *store.Chunk) []Finding {
	if c.Outline != "" {
		return c.Secrets
	}
	return Shift(c.Secrets, c.StartByte, c.EndByte, c.StartLine)
}

// RedactString scans text and redacts what it finds, returning the findings.
func RedactString(path, text string) (string, []Finding) {
	fs := Scan(path, text)
	return Redact(text, fs), fs
}
