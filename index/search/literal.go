package search

import (
	"bytes"
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"strings"
)

// prefilter holds literals that every match of a pattern contains: for
// each clause, at least one of its literals. A file without them is skipped
// without running the regular expression, whose engine is far slower than
// a substring search.
type prefilter struct {
	clauses [][][]byte // lower-cased when fold
	fold    bool
}

// minLiteral is the shortest literal worth filtering by.
const minLiteral = 2

// newPrefilter analyses expr (Go syntax, as regexp.Compile gets it); nil
// when some match need not contain any literal of useful length.
func newPrefilter(expr string) *prefilter {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	clauses, fold := required(re.Simplify())
	p := &prefilter{fold: fold}
	for _, c := range clauses {
		if shortest(c) < minLiteral || fold && slices.ContainsFunc(c, func(l string) bool { return !isASCII(l) }) {
			continue // a clause of short or non-ASCII folded literals filters nothing
		}
		var lits [][]byte
		for _, l := range c {
			if fold {
				l = strings.ToLower(l)
			}
			lits = append(lits, []byte(l))
		}
		p.clauses = append(p.clauses, lits)
	}
	if len(p.clauses) == 0 {
		return nil
	}
	return p
}

// required returns what every match of re contains, as clauses that must
// all hold, each satisfied by any one of its literals, and whether any
// literal is case-insensitive; nil when nothing is required.
func required(re *syntax.Regexp) ([][]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return [][]string{{string(re.Rune)}}, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Every part's requirements hold.
		var all [][]string
		fold := false
		for _, sub := range re.Sub {
			cs, f := required(sub)
			all, fold = append(all, cs...), fold || f
		}
		return all, fold
	case syntax.OpAlternate:
		// One branch holds: its best clause joins one alternative clause.
		var any []string
		fold := false
		for _, sub := range re.Sub {
			cs, f := required(sub)
			if len(cs) == 0 {
				return nil, false
			}
			any, fold = append(any, best(cs)...), fold || f
		}
		return [][]string{any}, fold
	}
	return nil, false
}

// best is the clause that filters best: the one whose shortest literal is
// longest.
func best(clauses [][]string) []string {
	return slices.MaxFunc(clauses, func(a, b []string) int { return shortest(a) - shortest(b) })
}

func shortest(lits []string) int {
	return len(slices.MinFunc(lits, func(a, b string) int { return len(a) - len(b) }))
}

// match reports whether text may match: it holds one of the literals.
// lower is scratch space for the lower-cased text of a folding filter.
func (p *prefilter) match(text []byte, lower *[]byte) bool {
	if p == nil {
		return true
	}
	if p.fold {
		// (?i) also folds two non-ASCII letters onto ASCII ones, ſ onto s
		// and the Kelvin sign onto k: where they occur, only the regular
		// expression can tell.
		if bytes.Contains(text, longS) || bytes.Contains(text, kelvin) {
			return true
		}
		*lower = asciiLower(*lower, text)
		text = *lower
	}
	for _, c := range p.clauses {
		if !slices.ContainsFunc(c, func(l []byte) bool { return bytes.Contains(text, l) }) {
			return false
		}
	}
	return true
}

// byTrigram returns the clauses a trigram index can answer exactly (see
// store.RawBlobsFor): all of them, but for a case-insensitive pattern
// those with a literal holding s or k, which ſ and the Kelvin sign also
// match (match passes any file holding those).
func (p *prefilter) byTrigram() [][][]byte {
	if p == nil {
		return nil
	}
	var out [][][]byte
	for _, c := range p.clauses {
		if p.fold && slices.ContainsFunc(c, func(l []byte) bool { return bytes.ContainsAny(l, "sk") }) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// The only non-ASCII runes that simple case folding maps onto ASCII
// letters, in UTF-8.
var (
	longS  = []byte("\u017f")
	kelvin = []byte("\u212a")
)

// asciiLower returns text with A-Z lowered, in buf (grown as needed).
// Eight bytes at a time: for each byte, bit 7 of ge is set when its low
// seven bits are at least 'A', of gt when they are past 'Z'; a byte with
// bit 7 clear in the input and ge but not gt is upper case, and gets 0x20.
func asciiLower(buf, text []byte) []byte {
	if cap(buf) < len(text) {
		buf = make([]byte, len(text)+len(text)/4)
	}
	buf = buf[:len(text)]
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(text); i += 8 {
		x := binary.LittleEndian.Uint64(text[i:])
		low := x &^ high
		ge := low + (0x80-'A')*ones
		gt := low + (0x80-'Z'-1)*ones
		upper := ge &^ gt &^ x & high
		binary.LittleEndian.PutUint64(buf[i:], x|upper>>2)
	}
	for ; i < len(text); i++ {
		c := text[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return buf
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
