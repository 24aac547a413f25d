package secrets

import "strings"

// MaskLines is Mask for previews that number their lines: it keeps every
// line of text where it was. A secret that spans lines (a PEM private key)
// is masked on each of its lines, the first keeping Mask's hint and the
// others showing only the marker, instead of collapsing into one line that
// would shift the numbers of every line after it. Line breaks ("\n", and a
// "\r" before one) are never part of what is replaced.
func MaskLines(text string, fs []Finding) string {
	type piece struct {
		Finding
		first bool // the secret's first line: Mask's hint goes here
	}
	var pieces []piece
	for _, f := range fs {
		if f.Start < 0 || f.End > len(text) || f.Start >= f.End {
			continue
		}
		first := true
		for start := f.Start; start < f.End; {
			end, next := f.End, f.End
			if i := strings.IndexByte(text[start:f.End], '\n'); i >= 0 {
				end, next = start+i, start+i+1
			}
			if part := strings.TrimRight(text[start:end], "\r"); part != "" {
				pieces = append(pieces, piece{Finding{Rule: f.Rule, Start: start, End: start + len(part)}, first})
				first = false
			}
			start = next
		}
	}
	if len(pieces) == 0 {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, p := range pieces {
		if p.Start < at {
			continue // overlapping findings: the first one wins
		}
		b.WriteString(text[at:p.Start])
		if p.first {
			b.WriteString(Mask(text[p.Start:p.End], []Finding{{Rule: p.Rule, End: p.End - p.Start}}))
		} else {
			b.WriteString(Marker(p.Rule))
		}
		at = p.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// MaskLinesString scans text and masks what it finds line by line (see
// MaskLines).
func MaskLinesString(path, text string) string { return MaskLines(text, Scan(path, text)) }
