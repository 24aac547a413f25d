package ui

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/dossierhq/dossier/themes"
)

// previewStyles returns styles on a renderer with a fixed profile and a dark
// background, so goldens do not depend on the terminal running the tests.
func previewStyles(p termenv.Profile, noColor bool) *themes.Styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(p)
	r.SetHasDarkBackground(true)
	st := themes.NewStyles(r, themes.Auto(), noColor)
	return &st
}

const goSnippet = `package main

import "fmt"

// greet says hello.
func greet(name string) string {
	if name == "" {
		name = "world"	// default
	}
	return fmt.Sprintf("hello, %s", name)
}
`

const pySnippet = `def fib(n):
    """Return the n-th Fibonacci number."""
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b  # step
    return a
`

const mdSnippet = "# Title\n\nSome *emphasis* and `code`.\n\n- item one\n- item two\n\n```go\nx := 1\n```\n"

var highlightCases = []struct {
	name                             string
	code, lang                       string
	firstLine, from, maxLines, width int
}{
	{"go_tabs", goSnippet, "go", 1, 0, 50, 80},
	{"go_long_line", "package p\n\nvar s = \"a string literal far too long for a forty cell preview pane\"\n", "go", 1, 0, 50, 40},
	{"python_from_120", pySnippet, "python", 120, 0, 50, 60},
	// 997 + 6 lines ends at 1002: every gutter, 998 included, is 4 digits.
	{"python_gutter_grows", pySnippet, "python", 997, 1, 3, 60},
	{"markdown", mdSnippet, "markdown", 1, 0, 50, 60},
	{"unknown_language", "frobnicate <x> {\n\tquux;\n}\n", "no-such-language", 1, 0, 50, 60},
	{"scrolled_window", goSnippet, "go", 1, 5, 4, 80},
}

func TestHighlight(t *testing.T) {
	profiles := []struct {
		name    string
		profile termenv.Profile
	}{{"ansi256", termenv.ANSI256}, {"ascii", termenv.Ascii}}
	var h Highlighter
	for _, tc := range highlightCases {
		for _, p := range profiles {
			lines, total := h.Highlight(previewStyles(p.profile, false), tc.code, tc.lang, tc.firstLine, tc.from, tc.maxLines, tc.width)
			if want := strings.Count(tc.code, "\n"); total != want {
				t.Errorf("%s: total = %d, want %d", tc.name, total, want)
			}
			checkLines(t, tc.name+"/"+p.name, lines, tc.width)
			out := strings.Join(lines, "\n") + "\n"
			if p.profile == termenv.Ascii && strings.Contains(out, "\x1b") {
				t.Errorf("%s: escape sequence under the Ascii profile: %q", tc.name, out)
			}
			golden(t, tc.name+"-"+p.name, out)
		}
	}
}

// checkLines asserts what every Highlight result must satisfy.
func checkLines(t *testing.T, name string, lines []string, width int) {
	t.Helper()
	for i, l := range lines {
		if w := lipgloss.Width(l); w > max(width, 0) {
			t.Errorf("%s: line %d is %d cells wide, limit %d: %q", name, i, w, width, l)
		}
		if strings.Contains(l, "\n") {
			t.Errorf("%s: line %d contains a newline: %q", name, i, l)
		}
	}
}

func TestHighlightNoColor(t *testing.T) {
	st := previewStyles(termenv.TrueColor, true)
	var h Highlighter
	for _, tc := range highlightCases {
		lines, _ := h.Highlight(st, tc.code, tc.lang, tc.firstLine, tc.from, tc.maxLines, tc.width)
		if out := strings.Join(lines, "\n"); strings.Contains(out, "\x1b") {
			t.Errorf("%s: escape sequence with NO_COLOR: %q", tc.name, out)
		}
	}
	// A nil *Styles means no colours either, and a nil *Highlighter works.
	var nilH *Highlighter
	lines, total := nilH.Highlight(nil, goSnippet, "go", 1, 0, 3, 30)
	if total != 11 || len(lines) != 3 || strings.Contains(strings.Join(lines, ""), "\x1b") {
		t.Errorf("nil highlighter/styles: %d lines of %d: %q", len(lines), total, lines)
	}
}

func TestHighlightEdges(t *testing.T) {
	st := previewStyles(termenv.Ascii, false)
	var h Highlighter
	for _, tc := range []struct {
		code                             string
		firstLine, from, maxLines, width int
		want                             []string
		total                            int
	}{
		{"", 1, 0, 10, 20, nil, 0},
		{"a", 1, 0, 10, 20, []string{"1 │ a"}, 1},
		{"a\n", 1, 0, 10, 20, []string{"1 │ a"}, 1},
		{"\n", 1, 0, 10, 20, []string{"1 │ "}, 1},
		{"a\n\n", 1, 0, 10, 20, []string{"1 │ a", "2 │ "}, 2},
		{"a\r\nb", 1, 0, 10, 20, []string{"1 │ a", "2 │ b"}, 2},
		{"\tx\ty", 1, 0, 10, 20, []string{"1 │     x   y"}, 1},
		{"x\x1b[31my\x00", 1, 0, 10, 20, []string{`1 │ x\x1b[31my\x00`}, 1},
		{"bad\xffutf8", 1, 0, 10, 20, []string{`1 │ bad\xffutf8`}, 1},
		// Escapes are wider than what they stand for: lines are cut by them.
		{"\x1b]52;c;aGk=\x07tail", 1, 0, 10, 20, []string{`1 │ \x1b]52;c;aGk=\…`}, 1},
		{"a\nb\nc", 9, 1, 10, 20, []string{"10 │ b", "11 │ c"}, 3},
		{"a\nb", 1, 5, 10, 20, nil, 2},
		{"a\nb", 1, -3, 1, 20, []string{"1 │ a"}, 2},
		{"a\nb", 1, 0, 0, 20, nil, 2},
		{"a\nb", 1, 0, -1, 20, nil, 2},
		{"abcdef", 1, 0, 1, 0, []string{""}, 1},
		{"abcdef", 1, 0, 1, -5, []string{""}, 1},
		{"abcdef", 1, 0, 1, 2, []string{"1…"}, 1},
		{"abcdef", 1, 0, 1, 4, []string{"1 │ "}, 1},
		{"abcdef", 1, 0, 1, 5, []string{"1 │ …"}, 1},
		{"abcdef", 1, 0, 1, 8, []string{"1 │ abc…"}, 1},
		{"abcdef", 1, 0, 1, 10, []string{"1 │ abcdef"}, 1},
		{"日本語のテキスト", 1, 0, 1, 10, []string{"1 │ 日本…"}, 1},
		{"a", -7, 0, 1, 10, []string{"1 │ a"}, 1},
	} {
		lines, total := h.Highlight(st, tc.code, "go", tc.firstLine, tc.from, tc.maxLines, tc.width)
		if total != tc.total || fmt.Sprint(lines) != fmt.Sprint(tc.want) || len(lines) != len(tc.want) {
			t.Errorf("Highlight(%q, first %d, from %d, max %d, width %d) = %q, %d; want %q, %d",
				tc.code, tc.firstLine, tc.from, tc.maxLines, tc.width, lines, total, tc.want, tc.total)
		}
	}
}

// TestHighlightTruncatesStyled checks that cutting a coloured line leaves
// every escape sequence whole and closed.
func TestHighlightTruncatesStyled(t *testing.T) {
	st := previewStyles(termenv.TrueColor, false)
	var h Highlighter
	code := strings.Repeat(`x := map[string]int{"a": 1, "b": 2} // comment `, 4)
	for width := 0; width < 120; width++ {
		lines, _ := h.Highlight(st, code, "go", 1, 0, 1, width)
		checkLines(t, fmt.Sprint("width ", width), lines, width)
		l := lines[0]
		if width > 0 && !strings.HasSuffix(l, "\x1b[0m") {
			t.Errorf("width %d: line does not end with a reset: %q", width, l)
		}
		if n := len(sgrSeq.FindAllString(l, -1)); n != strings.Count(l, "\x1b") {
			t.Errorf("width %d: %d escapes but %d whole SGR sequences: %q", width, strings.Count(l, "\x1b"), n, l)
		}
	}
}

var sgrSeq = regexp.MustCompile("\x1b\\[[0-9;]*m")

func TestHighlightCache(t *testing.T) {
	st := previewStyles(termenv.ANSI256, false)
	var h Highlighter
	h.Highlight(st, goSnippet, "go", 1, 0, 5, 80)
	first := h.files.Keys()[0]
	f1, _ := h.files.Peek(first)
	// Width, scroll position and theme are not part of the key.
	h.Highlight(st, goSnippet, "go", 1, 3, 5, 40)
	h.Highlight(previewStyles(termenv.TrueColor, false), goSnippet, "go", 1, 0, 5, 40)
	if n := h.files.Len(); n != 1 {
		t.Fatalf("%d cached files after re-rendering one file, want 1", n)
	}
	if f2, _ := h.files.Peek(first); f1 != f2 {
		t.Error("file was lexed again")
	}
	if h.Ready(st, goSnippet, "python") {
		t.Error("Ready before python was lexed")
	}
	h.Prepare(st, goSnippet, "python")
	if !h.Ready(st, goSnippet, "python") || !h.Ready(st, goSnippet, "go") {
		t.Error("not Ready after Prepare")
	}
	h.Highlight(st, goSnippet, "python", 1, 0, 5, 80)
	h.Highlight(previewStyles(termenv.ANSI256, true), goSnippet, "go", 1, 0, 5, 80)
	if n := h.files.Len(); n != 3 {
		t.Errorf("%d cached files, want 3 (go, python, plain)", n)
	}
}

func FuzzHighlight(f *testing.F) {
	f.Add(goSnippet, "go", 1, 0, 10, 40, false)
	f.Add(mdSnippet, "markdown", 120, 2, 3, 0, true)
	f.Add("\t\x1b[2J\r\n\xff日本", "python", -1, -1, -1, -1, false)
	f.Add("a\nb\nc", "", 1<<62, 1<<62, 1<<62, 1<<62, false)
	var h Highlighter
	styles := []*themes.Styles{previewStyles(termenv.TrueColor, false), previewStyles(termenv.TrueColor, true)}
	f.Fuzz(func(t *testing.T, code, lang string, firstLine, from, maxLines, width int, noColor bool) {
		st := styles[0]
		if noColor {
			st = styles[1]
		}
		lines, total := h.Highlight(st, code, lang, firstLine, from, maxLines, width)
		if total < 0 || len(lines) > max(maxLines, 0) || len(lines) > total {
			t.Fatalf("%d lines of %d for maxLines %d", len(lines), total, maxLines)
		}
		checkLines(t, "fuzz", lines, width)
		if noColor && strings.Contains(strings.Join(lines, ""), "\x1b") {
			t.Fatalf("escape sequence with noColor: %q", lines)
		}
	})
}

// sourceFile returns an n-line Go file for benchmarks.
func sourceFile(n int) string {
	var b strings.Builder
	b.WriteString("package bench\n\n")
	for i := 2; i < n; i += 6 {
		fmt.Fprintf(&b, "// f%d returns a value derived from x, with a \"string\" and a comment.\n", i)
		fmt.Fprintf(&b, "func f%d(x int) (int, error) {\n", i)
		b.WriteString("\tif x < 0 {\n\t\treturn 0, fmt.Errorf(\"negative: %d\", x)\n\t}\n")
		fmt.Fprintf(&b, "\treturn x*%d + len(\"abc\"), nil }\n", i)
	}
	return b.String()
}

// BenchmarkHighlightCached is the preview re-rendering a 3,000-line file on a
// selection move: one screen of lines from an already lexed file.
func BenchmarkHighlightCached(b *testing.B) {
	st := previewStyles(termenv.TrueColor, false)
	code := sourceFile(3000)
	var h Highlighter
	h.Highlight(st, code, "go", 1, 0, 60, 120)
	i := 0
	for b.Loop() {
		h.Highlight(st, code, "go", 1, (i*37)%2900, 60, 120)
		i++
	}
}

// BenchmarkHighlightCachedAll renders all 3,000 lines from the cache, the
// worst a caller can ask for.
func BenchmarkHighlightCachedAll(b *testing.B) {
	st := previewStyles(termenv.TrueColor, false)
	code := sourceFile(3000)
	var h Highlighter
	h.Highlight(st, code, "go", 1, 0, 3000, 120)
	for b.Loop() {
		h.Highlight(st, code, "go", 1, 0, 3000, 120)
	}
}

// BenchmarkHighlightCold is the first view of a 3,000-line file: lexing.
func BenchmarkHighlightCold(b *testing.B) {
	st := previewStyles(termenv.TrueColor, false)
	code := sourceFile(3000)
	for b.Loop() {
		var h Highlighter
		h.Highlight(st, code, "go", 1, 0, 60, 120)
	}
}

// BenchmarkHighlightColdPlain is the first view of a 3,000-line file without
// colour (NO_COLOR, or the placeholder while Prepare runs): no lexing.
func BenchmarkHighlightColdPlain(b *testing.B) {
	code := sourceFile(3000)
	for b.Loop() {
		var h Highlighter
		h.Highlight(nil, code, "go", 1, 0, 60, 120)
	}
}
