package ui

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/glamour"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"github.com/dossierhq/dossier/ui/termsafe"
)

// liveText is an answer as it streams in, kept wrapped to the pane's
// width. Each append re-wraps only the line still being written, so a
// 100k-token answer costs its deltas, not its length, per frame.
type liveText struct {
	raw   strings.Builder
	width int
	lines []string // wrapped; the first done of them are final
	done  int
	tail  int // byte offset in raw where the unfinished line starts
	// A very long unfinished line is wrapped in pieces: cut is where the
	// last piece ends, and cutLines are the pieces before it, wrapped.
	// The line is wrapped whole once it ends.
	cut      int
	cutLines []string
}

// pieceBytes is the unfinished text past which a long line is wrapped in
// pieces, so a line with no break (minified JSON, one huge paragraph)
// does not cost its whole length on every frame.
const pieceBytes = 4 << 10

// newLiveText wraps at width (at least 1).
func newLiveText(width int) *liveText { return &liveText{width: max(1, width)} }

// String is the text so far.
func (l *liveText) String() string { return l.raw.String() }

// append adds a delta and re-wraps what it touched.
func (l *liveText) append(s string) {
	l.raw.WriteString(s)
	l.rewrap()
}

// resize wraps everything again at a new width.
func (l *liveText) resize(width int) {
	width = max(1, width)
	if width == l.width {
		return
	}
	l.width, l.lines, l.done, l.tail, l.cut, l.cutLines = width, nil, 0, 0, 0, nil
	l.rewrap()
}

func (l *liveText) rewrap() {
	raw := l.raw.String()
	l.lines = l.lines[:l.done]
	rest := raw[l.tail:]
	for {
		i := strings.IndexByte(rest, '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, wrapLine(rest[:i], l.width)...)
		l.tail += i + 1
		rest = rest[i+1:]
	}
	l.done = len(l.lines)
	if l.cut < l.tail {
		l.cut, l.cutLines = l.tail, nil
	}
	for len(raw)-l.cut > 2*pieceBytes {
		end := l.cut + pieceBytes
		if sp := strings.LastIndexByte(raw[l.cut:end], ' '); sp > 0 {
			end = l.cut + sp + 1
		}
		for end < len(raw) && !utf8.RuneStart(raw[end]) {
			end++
		}
		l.cutLines = append(l.cutLines, wrapLine(raw[l.cut:end], l.width)...)
		l.cut = end
	}
	l.lines = append(l.lines, l.cutLines...)
	if rest := raw[l.cut:]; rest != "" {
		l.lines = append(l.lines, wrapLine(rest, l.width)...)
	}
}

// wrapLine is one line of answer made safe for the terminal and wrapped.
func wrapLine(s string, width int) []string {
	s = strings.ReplaceAll(termsafe.String(s), "\t", "    ")
	if s == "" {
		return []string{""}
	}
	return strings.Split(ansi.Wrap(s, width, ""), "\n")
}

// wrapText wraps a whole text (a finished answer shown before its
// Markdown rendering is ready).
func wrapText(s string, width int) []string {
	l := newLiveText(width)
	l.append(s)
	return l.lines
}

// glamourStyle names the glamour style for the workbench's colours.
func glamourStyle(profile termenv.Profile, dark bool) string {
	switch {
	case profile == termenv.Ascii:
		return "ascii"
	case dark:
		return "dark"
	}
	return "light"
}

// renderMarkdown renders a finished answer with glamour at width, after
// making it safe for the terminal: glamour passes control characters
// through. It falls back to the plain wrapped text when glamour fails.
func renderMarkdown(text string, width int, style string, profile termenv.Profile) []string {
	r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(max(10, width-2)),
		glamour.WithColorProfile(profile))
	if err != nil {
		return wrapText(text, width)
	}
	out, err := r.Render(termsafe.String(text))
	if err != nil {
		return wrapText(text, width)
	}
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		// glamour pads every line to the wrap width; the pane pads anyway.
		lines[i] = strings.TrimRight(l, " ")
		if ansi.StringWidth(lines[i]) > width {
			lines[i] = ansi.Truncate(lines[i], width, "…")
		}
	}
	return lines
}
