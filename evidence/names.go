// Package evidence keeps flows: directories of ranked prompt parts laid
// out as seed 003 describes, the selectors that add evidence to them, and
// the command engine that the CLI and the workbench both drive.
package evidence

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dossierhq/dossier/assemble"
)

// PartName is a parsed part file name, seed 003's
// <rank>_<kind>.<role>.md, with ".skip" for an inactive part and
// ".evidence.link" for a live file.
type PartName struct {
	Rank string // three digits
	Kind string
	Role assemble.Role
	Link bool
	Skip bool
}

// ID is "rank_kind", the name commands take.
func (n PartName) ID() string { return n.Rank + "_" + n.Kind }

// String renders the file name.
func (n PartName) String() string {
	ext := ".md"
	if n.Link {
		ext = ".link"
	}
	s := n.Rank + "_" + n.Kind + "." + string(n.Role) + ext
	if n.Skip {
		s += ".skip"
	}
	return s
}

// Band is a range of ranks with a meaning (seed 003's ranking strategy).
type Band struct {
	Name     string
	Low, Hi  int // inclusive
	Describe string
}

// Bands are seed 003's rank bands.
var Bands = []Band{
	{"system", 0, 99, "system messages (policies, constraints)"},
	{"critical", 100, 199, "critical evidence (core functionality)"},
	{"supporting", 200, 299, "supporting evidence (tests, docs)"},
	{"peripheral", 300, 399, "peripheral evidence (examples, config)"},
	{"optional", 400, 499, "optional context (related files)"},
}

// Where new system and user parts go by default, inside the system band:
// seed 003's 000_policy.system.md and 010_request.user.md.
var (
	systemParts = Band{"system", 0, 9, "system parts"}
	userParts   = Band{"user", 10, 99, "user parts"}
)

// BandOf names the band of a rank; ranks past 499 are "optional".
func BandOf(rank int) Band {
	for _, b := range Bands {
		if rank >= b.Low && rank <= b.Hi {
			return b
		}
	}
	return Band{"optional", 500, 999, "optional context"}
}

// ParseBand reads a band name or a range "300-399".
func ParseBand(s string) (Band, error) {
	for _, b := range Bands {
		if strings.EqualFold(s, b.Name) {
			return b, nil
		}
	}
	if lo, hi, ok := parseRankRange(s); ok {
		return Band{Name: s, Low: lo, Hi: hi}, nil
	}
	return Band{}, fmt.Errorf("unknown rank band %q: use critical, supporting, peripheral, optional or a range like 300-399", s)
}

// ParsePartName reads a part file name. ok is false for any other file,
// which flows report and leave alone.
func ParsePartName(name string) (PartName, bool) {
	var n PartName
	rest := name
	if s, ok := strings.CutSuffix(rest, ".skip"); ok {
		n.Skip, rest = true, s
	}
	switch {
	case strings.HasSuffix(rest, ".md"):
		rest = strings.TrimSuffix(rest, ".md")
	case strings.HasSuffix(rest, ".link"):
		n.Link, rest = true, strings.TrimSuffix(rest, ".link")
	default:
		return n, false
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 {
		return n, false
	}
	switch role := assemble.Role(rest[dot+1:]); role {
	case assemble.System, assemble.User, assemble.Evidence:
		n.Role = role
	default:
		return n, false
	}
	if n.Link && n.Role != assemble.Evidence {
		return n, false
	}
	rest = rest[:dot]
	if len(rest) < 5 || rest[3] != '_' || !isDigits(rest[:3]) {
		return n, false
	}
	n.Rank, n.Kind = rest[:3], rest[4:]
	if !validKind(n.Kind) {
		return n, false
	}
	return n, true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// validKind accepts what Sanitize produces and what a person plausibly
// types by hand: letters, digits, '_', '-' and '.'.
func validKind(k string) bool {
	if k == "" || len(k) > 120 {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// Sanitize turns a path or a name into a kind: seed 003's "filename with
// sanitization", lower case with runs of other characters as '_'
// ("core/flow.sh" -> "flow_sh"; with dir, "core_flow_sh").
func Sanitize(s string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.TrimRight(b.String(), "_")
	if len(out) > 60 {
		out = strings.TrimRight(out[:60], "_")
	}
	if out == "" {
		out = "part"
	}
	return out
}

// FormatRank renders a rank as seed 003's three digits.
func FormatRank(n int) string { return fmt.Sprintf("%03d", n) }

// parseRankRange reads "300-399".
func parseRankRange(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, false
	}
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || lo < 0 || hi > 999 || lo > hi {
		return 0, 0, false
	}
	return lo, hi, true
}

// ParseRank reads a rank 0..999.
func ParseRank(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 999 {
		return 0, fmt.Errorf("bad rank %q: give a number from 0 to 999", s)
	}
	return n, nil
}
