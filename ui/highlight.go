package ui

import (
	"hash/maphash"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	chromastyles "github.com/alecthomas/chroma/v2/styles"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/muesli/termenv"

	"github.com/dossierhq/dossier/themes"
	"github.com/dossierhq/dossier/ui/termsafe"
)

const (
	// highlightCacheFiles bounds the lexed files kept. A 3,000-line Go file
	// keeps about 2 MB once lexed; the preview flips between a handful of files
	// while the user walks the evidence list.
	highlightCacheFiles = 16
	// tabWidth is the tab stop used when expanding tabs.
	tabWidth = 4
	// gutterSep separates line numbers from code.
	gutterSep = " │ "
	// ellipsis marks a line cut at the pane's width.
	ellipsis = "…"
	sgrReset = "\x1b[0m"
)

// Highlighter renders syntax-highlighted code previews. It remembers lexed
// files so that scrolling or moving the selection back to a file does not
// lex it again; it lives in the UI's shared context rather than in a package
// global. The zero value is ready to use and it is safe for concurrent use;
// hold it by pointer, since Bubble Tea copies the model on every Update. A
// nil *Highlighter works too, without a cache.
type Highlighter struct {
	once  sync.Once
	seed  maphash.Seed
	files *lru.Cache[fileKey, *lexedFile]
	// sgr holds per-token escape sequences per (chroma style, colour
	// profile), so a theme switch only rebuilds this small table.
	sgr *lru.Cache[sgrKey, sgrTable]
}

// fileKey identifies lexed code. Theme and width are deliberately absent:
// tokens do not depend on them, and styling and truncation only touch the
// visible lines, so a resize or theme switch costs no re-lexing.
type fileKey struct {
	hash  uint64
	lang  string
	plain bool // not lexed: no colour, so tokens would be thrown away
}

// lexedFile is the tab-expanded, sanitised lines of one file, split into
// token segments. It is immutable once built.
type lexedFile struct {
	code  string // to rule out hash collisions
	lines []codeLine
}

type codeLine struct {
	segs  []segment
	width int // sum of the segments' widths in cells
}

type segment struct {
	text  string
	width int
	tt    chroma.TokenType
}

type sgrKey struct {
	theme   string
	profile termenv.Profile
}

// sgrTable maps a token type to the SGR sequence that starts it ("" for
// default text).
type sgrTable map[chroma.TokenType]string

func (h *Highlighter) init() {
	h.once.Do(func() {
		h.seed = maphash.MakeSeed()
		// lru.New only fails for a non-positive size.
		h.files, _ = lru.New[fileKey, *lexedFile](highlightCacheFiles)
		h.sgr, _ = lru.New[sgrKey, sgrTable](8)
	})
}

// Highlight renders code as terminal lines for the preview pane and returns
// at most maxLines of them, starting at 0-based line from, plus the total
// number of lines in code.
//
// Each line is a right-aligned line-number gutter (numbers start at
// firstLine, the source line of code's first line, and the gutter is as wide
// as the file's last number so it does not jitter while scrolling), then the
// code highlighted with chroma's lexer for lang (dossier's language names,
// or any name, alias or extension chroma knows; anything else is plain
// text). Tabs are expanded to stops every 4 cells, control characters and
// escape sequences are shown escaped (termsafe: ESC as \x1b) so file content
// can never act on the terminal, and each line, gutter included, is cut to width cells with an
// ellipsis rather than wrapped. Width is measured in terminal cells.
//
// Colours come from st: the gutter uses st.LineNumber and the code
// st.CodeTheme. With st nil, st.NoColor, or an Ascii colour profile the
// output contains no escape sequences at all. Out-of-range arguments are
// clamped rather than rejected: width <= 0 yields empty lines, maxLines <= 0
// or from >= total yields none.
//
// The first Highlight of a file lexes it on the calling goroutine, which
// takes about 50 ms per 1,000 lines of Go; see Ready and Prepare to keep that
// out of View.
func (h *Highlighter) Highlight(st *themes.Styles, code, lang string, firstLine, from, maxLines, width int) (lines []string, total int) {
	colour, profile := colourMode(st)
	f := h.file(code, lang, !colour)
	total = len(f.lines)
	from = max(from, 0)
	if maxLines <= 0 || from >= total {
		return nil, total
	}
	maxLines = min(maxLines, total-from)

	// Bound firstLine so the last line number cannot overflow.
	firstLine = min(max(firstLine, 1), 1<<40)
	digits := len(strconv.Itoa(firstLine + total - 1))
	var gutterStyle *lipgloss.Style
	if st != nil && !st.NoColor {
		gutterStyle = &st.LineNumber
	}
	var table sgrTable
	if colour {
		table = h.table(st.CodeTheme, profile)
	}

	gutters := make([]string, maxLines)
	for i := range gutters {
		n := strconv.Itoa(firstLine + from + i)
		gutters[i] = strings.Repeat(" ", digits-len(n)) + n + gutterSep
	}
	g := gutter{
		plain:  gutters,
		styled: styleAll(gutterStyle, gutters),
		style:  gutterStyle,
		width:  digits + ansi.StringWidth(gutterSep),
	}

	lines = make([]string, maxLines)
	var b strings.Builder
	for i := range lines {
		b.Reset()
		renderLine(&b, g, i, f.lines[from+i], table, width)
		lines[i] = b.String()
	}
	return lines, total
}

// gutter holds the line numbers of one Highlight call, plain and styled.
type gutter struct {
	plain, styled []string
	style         *lipgloss.Style // nil: no styling
	width         int             // cells, the same for every line
}

// styleAll renders every string with st in one lipgloss call, which styles
// each line on its own: per-line Render calls were half the cost of a
// cached Highlight.
func styleAll(st *lipgloss.Style, plain []string) []string {
	if st == nil {
		return plain
	}
	out := strings.Split(st.Render(strings.Join(plain, "\n")), "\n")
	if len(out) != len(plain) {
		out = make([]string, len(plain))
		for i, s := range plain {
			out[i] = st.Render(s)
		}
	}
	return out
}

// Ready reports whether Highlight would find code already lexed for st and
// lang, and so returns without lexing.
func (h *Highlighter) Ready(st *themes.Styles, code, lang string) bool {
	if h == nil {
		return false
	}
	colour, _ := colourMode(st)
	key := h.key(code, lang, !colour)
	f, ok := h.files.Peek(key)
	return ok && f.code == code
}

// Prepare lexes code into the cache so a later Highlight is fast. It is
// meant to run in a tea.Cmd when Ready is false, while View shows the file
// unhighlighted (Highlight with nil styles costs no lexing).
func (h *Highlighter) Prepare(st *themes.Styles, code, lang string) {
	colour, _ := colourMode(st)
	h.file(code, lang, !colour)
}

// colourMode reports whether st asks for colour the terminal can show.
func colourMode(st *themes.Styles) (bool, termenv.Profile) {
	if st == nil || st.NoColor || st.CodeTheme == "" || st.Renderer == nil {
		return false, termenv.Ascii
	}
	p := st.Renderer.ColorProfile()
	return p != termenv.Ascii, p
}

func (h *Highlighter) key(code, lang string, plain bool) fileKey {
	h.init()
	if plain {
		lang = "" // the language does not change unlexed lines
	}
	return fileKey{hash: maphash.String(h.seed, code), lang: lang, plain: plain}
}

// file returns the lexed lines of code, from the cache when possible.
func (h *Highlighter) file(code, lang string, plain bool) *lexedFile {
	if h == nil {
		return &lexedFile{code: code, lines: lexLines(code, lang, plain)}
	}
	key := h.key(code, lang, plain)
	if f, ok := h.files.Get(key); ok && f.code == code {
		return f
	}
	f := &lexedFile{code: code, lines: lexLines(code, lang, plain)}
	h.files.Add(key, f)
	return f
}

// table returns the SGR table for a chroma style and colour profile.
func (h *Highlighter) table(theme string, p termenv.Profile) sgrTable {
	if h == nil {
		return newSGRTable(theme, p)
	}
	h.init()
	key := sgrKey{theme, p}
	if t, ok := h.sgr.Get(key); ok {
		return t
	}
	t := newSGRTable(theme, p)
	h.sgr.Add(key, t)
	return t
}

// renderLine writes one gutter-plus-code line cut to width cells. Truncation
// works on the plain segment text before any escape sequence is added, so a
// sequence can never be split.
func renderLine(b *strings.Builder, g gutter, i int, line codeLine, table sgrTable, width int) {
	if width <= 0 {
		return
	}
	fits := g.width+line.width <= width
	if !fits && g.width >= width {
		b.WriteString(styleAll(g.style, []string{ansi.Truncate(g.plain[i], width, ellipsis)})[0])
		return
	}
	b.WriteString(g.styled[i])
	room := width - g.width
	if !fits {
		room-- // keep a cell for the ellipsis
	}
	open := "" // SGR currently in effect; adjacent same-style segments share it
	for _, s := range line.segs {
		text, cut := s.text, false
		if !fits && s.width > room {
			text, cut = ansi.Truncate(text, room, ""), true
		}
		room -= s.width
		if cut {
			text += ellipsis
		}
		if sgr := table.lookup(s.tt); sgr != open {
			if open != "" {
				b.WriteString(sgrReset)
			}
			b.WriteString(sgr)
			open = sgr
		}
		b.WriteString(text)
		if cut {
			break
		}
	}
	if open != "" {
		b.WriteString(sgrReset)
	}
}

// lookup falls back through the token's parent categories, as chroma's own
// formatters do, for token types outside chroma.StandardTypes.
func (t sgrTable) lookup(tt chroma.TokenType) string {
	if t == nil {
		return ""
	}
	if s, ok := t[tt]; ok {
		return s
	}
	if s, ok := t[tt.SubCategory()]; ok {
		return s
	}
	return t[tt.Category()]
}

// newSGRTable precomputes the escape sequence of every standard token type
// so rendering is a map lookup. Background colours are ignored on purpose:
// the preview sits on the terminal's own background, and painted token
// backgrounds would show as blocks.
func newSGRTable(theme string, p termenv.Profile) sgrTable {
	style := chromastyles.Get(theme)
	t := make(sgrTable, len(chroma.StandardTypes))
	for tt := range chroma.StandardTypes {
		t[tt] = sgrFor(style.Get(tt), p)
	}
	return t
}

func sgrFor(e chroma.StyleEntry, p termenv.Profile) string {
	var params []string
	if e.Bold == chroma.Yes {
		params = append(params, "1")
	}
	if e.Italic == chroma.Yes {
		params = append(params, "3")
	}
	if e.Underline == chroma.Yes {
		params = append(params, "4")
	}
	if e.Colour.IsSet() {
		if c := p.Color(e.Colour.String()); c != nil {
			if seq := c.Sequence(false); seq != "" {
				params = append(params, seq)
			}
		}
	}
	if len(params) == 0 {
		return ""
	}
	return "\x1b[" + strings.Join(params, ";") + "m"
}

// lexLines splits code into lines of token segments. One trailing newline
// ends the last line rather than starting an empty one, so "a\n" is one line.
// Control characters and escape sequences are escaped before lexing, so the
// escapes' widths are what lines are measured and cut with.
func lexLines(code, lang string, plain bool) []codeLine {
	code = termsafe.String(code)
	if code == "" {
		return nil
	}
	body := strings.TrimSuffix(code, "\n")
	n := strings.Count(body, "\n") + 1
	var tokens []chroma.Token
	if !plain {
		tokens = tokenise(body, lang)
	}
	if tokens == nil {
		tokens = []chroma.Token{{Type: chroma.Text, Value: body}}
	}
	var lb lineBuilder
	for _, tok := range tokens {
		lb.add(tok.Value, tok.Type)
	}
	lines := lb.finish()
	// Lexers may append a newline to the text (EnsureNL), adding an empty
	// last line.
	return lines[:min(n, len(lines))]
}

// tokenise lexes body with the lexer for lang, or returns nil when there is
// none or the lexer misbehaves, so the caller falls back to plain text.
func tokenise(body, lang string) (tokens []chroma.Token) {
	if lang == "" {
		return nil
	}
	lexer := lexers.Get(lang)
	if lexer == nil {
		return nil
	}
	// chroma is third-party code fed arbitrary file content; a panic in a
	// lexer must cost the colours, not the TUI.
	defer func() {
		if recover() != nil {
			tokens = nil
		}
	}()
	it, err := chroma.Coalesce(lexer).Tokenise(nil, body)
	if err != nil {
		return nil
	}
	tokens = it.Tokens()
	// Segments must reproduce the text exactly, or line numbers would lie.
	var size int
	for _, t := range tokens {
		size += len(t.Value)
	}
	if size != len(body) && size != len(body)+1 {
		return nil
	}
	var sb strings.Builder
	sb.Grow(size)
	for _, t := range tokens {
		sb.WriteString(t.Value)
	}
	if joined := sb.String(); joined != body && joined != body+"\n" {
		return nil
	}
	return tokens
}

// lineBuilder accumulates token text into lines, expanding tabs against the
// running column.
type lineBuilder struct {
	lines []codeLine
	cur   codeLine
}

func (lb *lineBuilder) add(text string, tt chroma.TokenType) {
	for text != "" {
		i := strings.IndexAny(text, "\t\n")
		if i < 0 {
			lb.push(text, tt)
			return
		}
		lb.push(text[:i], tt)
		if text[i] == '\n' {
			lb.lines = append(lb.lines, lb.cur)
			lb.cur = codeLine{}
		} else {
			lb.push(strings.Repeat(" ", tabWidth-lb.cur.width%tabWidth), tt)
		}
		text = text[i+1:]
	}
}

func (lb *lineBuilder) push(text string, tt chroma.TokenType) {
	if text == "" {
		return
	}
	w := cellWidth(text)
	lb.cur.segs = append(lb.cur.segs, segment{text: text, width: w, tt: tt})
	lb.cur.width += w
}

func (lb *lineBuilder) finish() []codeLine {
	return append(lb.lines, lb.cur)
}

// cellWidth is ansi.StringWidth with a fast path for ASCII, which is nearly
// all code.
func cellWidth(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}
