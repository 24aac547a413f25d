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
// not lose a part. A plain line (blank, a lone brace: under four
// characters) gets a "~" in front: it anchors nothing on its own.
func lineHash(line string) string {
	line = strings.TrimRight(line, " \t\r\n")
	sum := sha256.Sum256([]byte(line))
	h := hex.EncodeToString(sum[:4])
	if len(strings.TrimSpace(line)) < 4 {
		return "~" + h
	}
	return h
}

// fileHash is a source file's hash in a part's provenance (file=): 16
// hex digits of its sha256.
func fileHash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:8])
}

// plain tells whether a line hash is of a plain line.
func plain(h string) bool { return strings.HasPrefix(h, "~") }

// anchor is what a part's span is found again by: the hashes of its first
// and last lines, and of the lines just above and below it ("" at the
// file's start or end), as patch keeps a hunk's context.
type anchor struct{ head, tail, above, below string }

// String is the provenance form: "HEAD:TAIL:ABOVE:BELOW".
func (a anchor) String() string {
	if a.head == "" {
		return ""
	}
	return a.head + ":" + a.tail + ":" + a.above + ":" + a.below
}

// parseAnchor reads an anchor; parts written before the context lines
// have only "HEAD:TAIL".
func parseAnchor(s string) (anchor, bool) {
	f := strings.Split(s, ":")
	switch len(f) {
	case 2:
		return anchor{head: f[0], tail: f[1]}, true
	case 4:
		return anchor{f[0], f[1], f[2], f[3]}, true
	}
	return anchor{}, false
}

// anchorAt is the anchor of lines start-end of text.
func anchorAt(text string, starts []int, start, end int) string {
	line := func(i int) string {
		if i < 1 || i > len(starts) {
			return ""
		}
		return lineHash(sliceLines(text, starts, i, i))
	}
	return anchor{line(start), line(end), line(start - 1), line(end + 1)}.String()
}

// anchorOf is the anchor of a span's own text, without context: for parts
// written before anchors.
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
	if s.File != "" && fileHash(text) == s.File {
		return relocation{state: Unchanged, start: s.StartLine, end: s.EndLine}
	}
	// A symbol is looked up whenever its file changed (its old lines may
	// read the same while it grew below them), other spans when their
	// lines changed.
	if (s.Symbol == "" || find == nil || s.File == "") && sameSpan(text, s) {
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
	raw := s.Anchor
	if raw == "" && CID([]byte(old)) == s.CID {
		raw = anchorOf(old) // a part written before anchors
	}
	an, ok := parseAnchor(raw)
	if !ok {
		return lost(s, "its lines changed, and it has no anchor to find them by (added before dossier kept one)")
	}
	hashes := make([]string, len(starts))
	for i := range starts {
		hashes[i] = lineHash(sliceLines(text, starts, i+1, i+1))
	}
	// Context that says something must agree: of two copies of a block,
	// the one under its old function's line is the part's. Without such
	// context a block is taken only when it is the one copy (see pick).
	context := func(h string) bool { return h != "" && !plain(h) }
	above := func(i int) bool { return !context(an.above) || i > 1 && hashes[i-2] == an.above }
	below := func(j int) bool { return !context(an.below) || j < len(hashes) && hashes[j] == an.below }
	hasContext := context(an.above) || context(an.below)
	// vouched: a span i-j lies under the line it lay under, when that line
	// says something (a function's first line, usually); else over the
	// line it lay over.
	vouched := func(i, j int) bool {
		if context(an.above) {
			return above(i)
		}
		return below(j)
	}
	n := s.EndLine - s.StartLine + 1
	// 2: the same content elsewhere.
	var found []int
	for i := 1; i+n-1 <= len(hashes); i++ {
		if hashes[i-1] == an.head && hashes[i+n-2] == an.tail && vouched(i, i+n-1) &&
			CID([]byte(sliceLines(text, starts, i, i+n-1))) == s.CID {
			found = append(found, i)
		}
	}
	if best, ok := pick(found, s.StartLine, hasContext); ok {
		return relocation{state: Moved, start: best, end: best + n - 1, why: fmt.Sprintf("lines %d-%d are now %d-%d", s.StartLine, s.EndLine, best, best+n-1)}
	} else if len(found) > 1 {
		return lost(s, fmt.Sprintf("its text is in %d places of %s now, and nothing around them tells which is its", len(found), s.Path))
	}
	if symbolGone {
		return lost(s, fmt.Sprintf("no symbol %s in %s now (renamed or deleted?)", s.Symbol, s.Path))
	}
	// 3: its first line (under its old context line) near its place, and
	// its last line nearest to where the old length puts it. A plain first
	// line anchors nothing.
	if plain(an.head) || old != "" && plain(lineHash(splitLines(old)[0])) {
		return lost(s, fmt.Sprintf("lines %d-%d changed, and its first line is too plain to find it by", s.StartLine, s.EndLine))
	}
	found = found[:0]
	for i := range hashes {
		if hashes[i] == an.head && above(i+1) {
			found = append(found, i+1)
		}
	}
	best, ok := pick(found, s.StartLine, context(an.above))
	if !ok {
		if len(found) > 1 {
			return lost(s, fmt.Sprintf("its first line is in %d places of %s now, and nothing around them tells which is its", len(found), s.Path))
		}
		return lost(s, fmt.Sprintf("its first line (line %d) is gone from %s, or no longer under the line it was under", s.StartLine, s.Path))
	}
	// The span may grow or shrink, within reason: a last line much further
	// down is another block's.
	want, end := best+n-1, 0
	for j := best; j <= min(len(hashes), best+max(2*n, n+50)); j++ {
		if hashes[j-1] == an.tail && below(j) && (end == 0 || abs(j-want) < abs(end-want)) {
			end = j
		}
	}
	if end == 0 {
		return lost(s, fmt.Sprintf("its first line is now line %d, but its last line (line %d) is gone", best, s.EndLine))
	}
	return judge(s, text, starts, best, end, "its first and last lines")
}

// pick chooses among candidate lines: the nearest to want when context
// vouched for them, else only a single one.
func pick(found []int, want int, vouched bool) (int, bool) {
	switch {
	case len(found) == 0:
		return 0, false
	case len(found) == 1:
		return found[0], true
	case !vouched:
		return 0, false
	}
	best := 0
	for _, i := range found {
		if nearer(i, best, want) {
			best = i
		}
	}
	return best, true
}

func abs(x int) int { return max(x, -x) }

// sameSpan tells whether s's lines read as they did, a final line break
// aside: text appended to a file that had none is not a change of its
// last line.
func sameSpan(text string, s assemble.Source) bool {
	now := spanText(text, s)
	return CID([]byte(now)) == s.CID || strings.HasSuffix(now, "\n") && CID([]byte(strings.TrimSuffix(now, "\n"))) == s.CID
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
