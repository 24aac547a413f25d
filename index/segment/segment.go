// Package segment splits a file into segments: functions, methods and type
// outlines for code (tree-sitter), sections for Markdown, keys for config and
// sliding windows for other text. Segmentation is pure and deterministic: the
// same bytes always give the same segments.
//
// A parse that a construct the grammar cannot read throws off is tried again
// with that construct made a comment of the same length, so every offset
// holds: C and C++ macros where the grammar wants a type or a name
// (cmacro.go), and the body of a shell function whose quotes tree-sitter-bash
// cannot pair, after which it finds nothing more (resync.go; the file is
// still reported as a parse error, at that line).
package segment

import (
	"bytes"
	"context"
	"strings"
	"unicode/utf8"

	"github.com/dossierhq/dossier/index/lang"
)

// Kind is what a segment is.
type Kind string

// Segment kinds.
const (
	Function  Kind = "function"
	Method    Kind = "method"
	Class     Kind = "class"
	Struct    Kind = "struct"
	Interface Kind = "interface"
	Enum      Kind = "enum"
	Trait     Kind = "trait"
	Impl      Kind = "impl"
	TypeDef   Kind = "type"
	Module    Kind = "module"
	Record    Kind = "record"
	Imports   Kind = "imports"
	TopLevel  Kind = "top_level"
	Section   Kind = "markdown_section"
	ConfigKey Kind = "config_key"
	Window    Kind = "text_window"
)

// Member kinds: named things smaller than a chunk, which are symbols with
// a span of their own inside the chunk that holds them (a function-valued
// member, such as a class property `fetch = (req) => ...` or an object
// literal's method, is a Method).
const (
	Const      Kind = "const"       // a constant: Go/JS const, Rust const, C #define, an UPPER_CASE Python name
	Var        Kind = "var"         // a module- or package-level variable (never a local)
	Field      Kind = "field"       // a struct or class field or property
	EnumMember Kind = "enum_member" // an enum's member or variant
)

// IsSymbol reports whether segments of kind k name a symbol for the symbol map.
func (k Kind) IsSymbol() bool {
	switch k {
	case Function, Method, Class, Struct, Interface, Enum, Trait, Impl, TypeDef, Module, Record:
		return true
	}
	return false
}

// Size limits, in estimated tokens (seed 002: 200-1200 per chunk, no overlap
// for code, overlap for prose; seed 004: 1000/200 windows for other text).
const (
	MaxTokens     = 1200
	MinTokens     = 200
	WindowTokens  = 1000
	WindowOverlap = 200
	ProseOverlap  = 200
)

// EstimateTokens is the chunker's size measure: 4 bytes per token. Exact
// counts belong to assembly, where they are worth their cost.
func EstimateTokens(nbytes int) int { return (nbytes + 3) / 4 }

// Segment is one piece of a file.
type Segment struct {
	Kind      Kind
	Name      string   // symbol name, heading or key; "" for top-level code
	Parents   []string // enclosing symbols or headings, outermost first
	Signature string
	Doc       string
	// Key is the section key within the symbol: a heading slug or key path
	// for documents; "" for code (the describer names code sections).
	Key string
	// Text is the artifact: the exact source span, or an outline (header plus
	// member signatures) when Outline is set.
	Text    string
	Outline bool
	// Context is extra text for search only (prose overlap with the previous section).
	Context            string
	StartByte, EndByte int
	StartLine, EndLine int // 1-based, inclusive
	Part, Parts        int // 1-based; Parts > 1 when a unit was split
}

// Symbol is a named thing inside a segment, smaller than it: a constant,
// variable, field, enum member or function-valued member. Its span covers
// its declaration (with the doc comment above it); for one name of a
// declaration that names several (`int a, b;`), the whole declaration.
type Symbol struct {
	Name               string
	Kind               Kind
	Parents            []string // enclosing symbols, outermost first
	Signature          string   // the declaration's first line
	StartByte, EndByte int
	StartLine, EndLine int // 1-based, inclusive
}

// Result is the segmentation of one file.
type Result struct {
	Segments []Segment
	// Symbols are the file's member symbols, in source order.
	Symbols    []Symbol
	Imports    []string
	ParseError bool // the parser recovered from syntax errors
	ErrorLine  int  // with ParseError, the 1-based line of the first one
	// Fallback, when not "", says why a code file is in text windows
	// instead (the parser gave up, or its tree was over MaxWalkSteps).
	Fallback string
}

// File segments src, whose language is language. parsers caches tree-sitter
// parsers for one goroutine. srcType is the file's source type.
func File(ctx context.Context, parsers *Parsers, language, srcType string, src []byte) Result {
	if !utf8.Valid(src) {
		src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	}
	var res Result
	switch {
	case srcType == lang.SrcGenerated:
		res.Segments = windows(src, 0)
	case lang.IsCode(language):
		var why string
		if res, why = parsers.code(ctx, language, src); why != "" {
			res = Result{Segments: windows(src, 0), Fallback: why}
		}
	case language == lang.Markdown:
		res.Segments = markdown(src)
	case language == lang.JSON:
		res.Segments = jsonKeys(src, srcType == lang.SrcAPIEndpoint)
	case language == lang.YAML:
		res.Segments = yamlKeys(src, srcType == lang.SrcAPIEndpoint)
	case language == lang.TOML:
		res.Segments = tomlKeys(src)
	default:
		res.Segments = windows(src, 0)
	}
	return res
}

// lines indexes the start offset of every line of src.
type lines []int

func newLines(src []byte) lines {
	ls := lines{0}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			ls = append(ls, i+1)
		}
	}
	return ls
}

// line returns the 1-based line holding byte offset off.
func (ls lines) line(off int) int {
	lo, hi := 0, len(ls)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if ls[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo + 1
}

// span makes a segment covering src[start:end] with line numbers.
func span(src []byte, ls lines, kind Kind, start, end int) Segment {
	// Trailing white space is never part of a unit: it would only make the
	// exact text differ from its normalized form.
	for end > start && (src[end-1] == '\n' || src[end-1] == ' ' || src[end-1] == '\t' || src[end-1] == '\r') {
		end--
	}
	last := end - 1
	if last < start {
		last = start
	}
	return Segment{
		Kind: kind, Text: string(src[start:end]), StartByte: start, EndByte: end,
		StartLine: ls.line(start), EndLine: ls.line(last), Part: 1, Parts: 1,
	}
}

// nonBlank drops the pieces that hold only white space (a long run of
// blank lines can fill a whole piece): a unit never has empty text.
func nonBlank(src []byte, ps []piece) []piece {
	out := ps[:0]
	for _, p := range ps {
		if len(bytes.TrimSpace(src[p.start:p.end])) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// piece is a line-aligned slice of a larger span.
type piece struct{ start, end int }

// splitSpan cuts src[start:end] into line-aligned pieces of at most maxTok
// estimated tokens, each starting overlapTok tokens before the previous end.
// A single line longer than the limit is cut at rune boundaries.
func splitSpan(src []byte, start, end, maxTok, overlapTok int) []piece {
	maxB, overB := maxTok*4, overlapTok*4
	if end-start <= maxB {
		return []piece{{start, end}}
	}
	var out []piece
	pos := start
	for pos < end {
		lim := pos + maxB
		if lim >= end {
			out = append(out, piece{pos, end})
			break
		}
		cut := bytes.LastIndexByte(src[pos:lim], '\n')
		if cut > 0 {
			cut = pos + cut + 1
		} else {
			cut = lim
			for cut > pos && !utf8.RuneStart(src[cut]) {
				cut--
			}
			if cut == pos {
				cut = lim
			}
		}
		out = append(out, piece{pos, cut})
		next := cut
		if overB > 0 {
			next = cut - overB
			switch nl := bytes.IndexByte(src[max(next, pos):cut], '\n'); {
			case next <= pos:
				next = cut
			case src[next-1] == '\n':
				// Already at a line start: keep the whole overlap.
			case nl >= 0 && next+nl+1 < cut:
				next += nl + 1
			default:
				// No line break to start at: at least start on a rune.
				for next < cut && !utf8.RuneStart(src[next]) {
					next++
				}
			}
		}
		pos = next
	}
	return out
}

// emitSplit appends seg, split into parts when it is over the limit.
func emitSplit(out []Segment, src []byte, ls lines, seg Segment, overlapTok int) []Segment {
	if seg.Outline || EstimateTokens(seg.EndByte-seg.StartByte) <= MaxTokens {
		if seg.Outline && EstimateTokens(len(seg.Text)) > MaxTokens {
			return splitOutline(out, seg)
		}
		return append(out, seg)
	}
	ps := nonBlank(src, splitSpan(src, seg.StartByte, seg.EndByte, MaxTokens, overlapTok))
	for i, p := range ps {
		s := seg
		part := span(src, ls, seg.Kind, p.start, p.end)
		// The part's own (trimmed) span, so Text stays src[StartByte:EndByte].
		s.Text, s.StartByte, s.EndByte, s.StartLine, s.EndLine = part.Text, part.StartByte, part.EndByte, part.StartLine, part.EndLine
		s.Part, s.Parts = i+1, len(ps)
		if i > 0 {
			s.Doc = ""
		}
		out = append(out, s)
	}
	return out
}

// splitOutline splits a synthesized outline by its own lines; every part
// keeps the unit's locator.
func splitOutline(out []Segment, seg Segment) []Segment {
	text := []byte(seg.Text)
	ps := nonBlank(text, splitSpan(text, 0, len(text), MaxTokens, 0))
	for i, p := range ps {
		s := seg
		s.Text = string(text[p.start:p.end])
		s.Part, s.Parts = i+1, len(ps)
		out = append(out, s)
	}
	return out
}

// windows cuts src into sliding windows (seed 004: 1000 tokens, 200 overlap).
func windows(src []byte, _ int) []Segment {
	if len(bytes.TrimSpace(src)) == 0 {
		return nil
	}
	ls := newLines(src)
	ps := nonBlank(src, splitSpan(src, 0, len(src), WindowTokens, WindowOverlap))
	out := make([]Segment, 0, len(ps))
	for i, p := range ps {
		s := span(src, ls, Window, p.start, p.end)
		s.Part, s.Parts = i+1, len(ps)
		out = append(out, s)
	}
	return out
}

// collapse squeezes runs of white space into single spaces and caps s.
func collapse(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
