package evidence

// A part follows its code. Every part taken from a source records its
// span, the symbol it was selected by (or that its lines are exactly), and
// an anchor on its content: the hashes of its first and last lines. When
// the source changes, relocate finds the span again, as patch finds a
// hunk by its context:
//
//  1. a symbol part by its symbol, in the file as it is now (the index's
//     chunks when they describe the current text, else a parse of it now);
//  2. the same content (its cid) near its old place: the lines moved;
//  3. its old first line near its old place, and its old last line after
//     that: the code changed inside.
//
// When none of them finds it the part is lost: it keeps its old text, and
// status and refresh say what changed; no other lines are ever taken in
// its place. The steps are dossier's own: they need the index's and the
// parser's view of the file, which no diff or patch library has.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/dossierhq/dossier/assemble"
)

// The outcomes of relocate.
const (
	Unchanged = "unchanged"
	Moved     = "moved"
	Changed   = "changed"
	Lost      = "lost"
)

// relocation is where a part's span is now.
type relocation struct {
	state string
	// start and end are the span's lines now (1-based, inclusive); for a
	// byte span, its bytes (end excluded).
	start, end int
	// why says how the span moved, or why it is lost.
	why string
}

// lineHash is the anchor hash of one line: 8 hex digits of its sha256,
// trailing white space (and a CR) left out, so a changed line ending does
// not lose a part.
func lineHash(line string) string {
	sum := sha256.Sum256([]byte(strings.TrimRight(line, " \t\r\n")))
	return hex.EncodeToString(sum[:4])
}

// anchorOf is the anchor of a span's text: "FIRST:LAST", its first and
// last lines' hashes; "" for an empty text.
func anchorOf(text string) string {
	lines := splitLines(text)
	if len(lines) == 0 {
		return ""
	}
	return lineHash(lines[0]) + ":" + lineHash(lines[len(lines)-1])
}

// splitLines splits text into lines without their line breaks; a final
// line break ends the last line rather than starting an empty one.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// relocate finds s, a line or byte span of a source, in text, the source
// as it is now. old is the span's text when it was taken ("" when the
// part was edited by hand, so only the anchor knows it). find, when not
// nil, finds a symbol's lines in text (see Engine.symbolLines).
func relocate(s assemble.Source, old, text string, find func(sym string) (int, int, bool)) relocation {
	if s.Span == "all" {
		if CID([]byte(text)) == s.CID {
			return relocation{state: Unchanged}
		}
		return relocation{state: Changed, start: 1, end: len(lineStarts(text))}
	}
	if strings.HasPrefix(s.Span, "bytes=") {
		return relocateBytes(s, old, text)
	}
	if CID([]byte(spanText(text, s))) == s.CID {
		return relocation{state: Unchanged, start: s.StartLine, end: s.EndLine}
	}
	starts := lineStarts(text)
	symbolGone := false
	if s.Symbol != "" && find != nil {
		if a, b, ok := find(s.Symbol); ok {
			return judge(s, text, starts, a, b, "@"+s.Symbol)
		}
		// Renamed or deleted: only its very text (a parse that failed to
		// name it) may still find it; other lines near its old first one
		// are another symbol's now.
		symbolGone = true
	}
	anchor := s.Anchor
	if anchor == "" && CID([]byte(old)) == s.CID {
		anchor = anchorOf(old) // a part written before anchors
	}
	head, tail, ok := strings.Cut(anchor, ":")
	if !ok {
		return lost(s, "its lines changed, and it has no anchor to find them by (added before dossier kept one)")
	}
	hashes := make([]string, len(starts))
	for i := range starts {
		hashes[i] = lineHash(sliceLines(text, starts, i+1, i+1))
	}
	n := s.EndLine - s.StartLine + 1
	// 2: the same content elsewhere, the nearest to where it was.
	best := 0
	for i := 1; i+n-1 <= len(hashes); i++ {
		if hashes[i-1] == head && hashes[i+n-2] == tail && nearer(i, best, s.StartLine) &&
			CID([]byte(sliceLines(text, starts, i, i+n-1))) == s.CID {
			best = i
		}
	}
	if best > 0 {
		return relocation{state: Moved, start: best, end: best + n - 1, why: fmt.Sprintf("lines %d-%d are now %d-%d", s.StartLine, s.EndLine, best, best+n-1)}
	}
	if symbolGone {
		return lost(s, fmt.Sprintf("no symbol %s in %s now (renamed or deleted?)", s.Symbol, s.Path))
	}
	// 3: the first line near its place, the last one after it. A first
	// line that says nothing of its own (blank, a brace) anchors nothing.
	if old != "" && len(strings.TrimSpace(splitLines(old)[0])) < 4 {
		return lost(s, fmt.Sprintf("lines %d-%d changed, and its first line is too plain to find it by", s.StartLine, s.EndLine))
	}
	for i := range hashes {
		if hashes[i] == head && nearer(i+1, best, s.StartLine) {
			best = i + 1
		}
	}
	if best == 0 {
		return lost(s, fmt.Sprintf("its first line (line %d) is gone from %s", s.StartLine, s.Path))
	}
	// The span may grow or shrink, within reason: a last line much further
	// down is another block's.
	limit := best + max(2*n, n+50)
	for j := best; j <= min(len(hashes), limit); j++ {
		if hashes[j-1] == tail {
			return judge(s, text, starts, best, j, "its first and last lines")
		}
	}
	return lost(s, fmt.Sprintf("its first line is now line %d, but its last line (line %d) is gone", best, s.EndLine))
}

// nearer tells whether candidate line i is nearer to line want than best
// (0: none yet); on a tie the earlier wins.
func nearer(i, best, want int) bool {
	if best == 0 {
		return true
	}
	d := func(x int) int { return max(x-want, want-x) }
	return d(i) < d(best)
}

// judge names what happened to s, found again at lines a-b by what by says.
func judge(s assemble.Source, text string, starts []int, a, b int, by string) relocation {
	r := relocation{start: a, end: b}
	same := CID([]byte(sliceLines(text, starts, a, b))) == s.CID
	switch {
	case same && a == s.StartLine:
		r.state = Unchanged
	case same:
		r.state, r.why = Moved, fmt.Sprintf("lines %d-%d are now %d-%d", s.StartLine, s.EndLine, a, b)
	default:
		r.state, r.why = Changed, fmt.Sprintf("found by %s at lines %d-%d (were %d-%d), its text changed", by, a, b, s.StartLine, s.EndLine)
	}
	return r
}

// relocateBytes finds a byte span again by its exact text only: bytes
// carry no lines to anchor to.
func relocateBytes(s assemble.Source, old, text string) relocation {
	from, to := byteSpan(s.Span)
	if CID([]byte(spanText(text, s))) == s.CID {
		return relocation{state: Unchanged, start: from, end: to}
	}
	if old == "" || CID([]byte(old)) != s.CID {
		return lost(s, "its bytes changed, and a byte span is found again only by its exact text, which a hand edit of the part hides")
	}
	best := -1
	for off := 0; ; {
		i := strings.Index(text[off:], old)
		if i < 0 {
			break
		}
		at := off + i
		if best < 0 || max(at-from, from-at) < max(best-from, from-best) {
			best = at
		}
		off = at + 1
	}
	if best < 0 {
		return lost(s, fmt.Sprintf("its text (bytes %d-%d) is no longer in %s", from, to, s.Path))
	}
	return relocation{state: Moved, start: best, end: best + len(old), why: fmt.Sprintf("bytes %d-%d are now %d-%d", from, to, best, best+len(old))}
}

// byteSpan reads "bytes=A:B".
func byteSpan(span string) (int, int) {
	a, b, _ := strings.Cut(strings.TrimPrefix(span, "bytes="), ":")
	from, _ := strconv.Atoi(a)
	to, _ := strconv.Atoi(b)
	return from, to
}

func lost(s assemble.Source, why string) relocation {
	return relocation{state: Lost, start: s.StartLine, end: s.EndLine, why: why}
}

// shortDiff is a unified diff of old and new text, at most n changed
// lines, indented under a refresh report line.
func shortDiff(old, new string, n int) string {
	d := difflib.UnifiedDiff{A: difflib.SplitLines(old), B: difflib.SplitLines(new), Context: 0}
	text, err := difflib.GetUnifiedDiffString(d)
	if err != nil || text == "" {
		return ""
	}
	var b strings.Builder
	shown := 0
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "@@") {
			continue
		}
		if shown == n {
			fmt.Fprintf(&b, "      … %d more changed line(s)\n", countChanged(lines[i:]))
			break
		}
		fmt.Fprintf(&b, "      %s\n", strings.TrimRight(l, "\r"))
		shown++
	}
	return b.String()
}

func countChanged(lines []string) int {
	n := 0
	for _, l := range lines {
		if !strings.HasPrefix(l, "@@") {
			n++
		}
	}
	return n
}
