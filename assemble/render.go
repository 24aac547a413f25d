package assemble

import (
	"fmt"
	"strconv"
	"strings"
)

// Format is an output format of `dossier assemble`.
type Format string

// The formats dossier renders.
const (
	MDCtx     Format = "mdctx"     // seed 003's prompt.mdctx
	Aptix     Format = "aptix"     // seed 000's [CONTEXT] block
	Responses Format = "responses" // seed 000's /responses input
	Pack      Format = "pack"      // seed 004's context pack
)

// Formats lists every format, the default first.
var Formats = []Format{MDCtx, Aptix, Responses, Pack}

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q: choose one of mdctx, aptix, responses, pack", s)
}

// segment is one piece of rendered output: a part's block or framing
// between blocks. Blocks are rendered and counted once per part version
// and reused; framing is small and counted through a string memo.
type segment struct {
	text   string
	part   int // index into Flow.Parts, -1 for framing
	tokens int // filled by the Assembler
}

// MDCtxHeader is prompt.mdctx's first line (seed 003).
func MDCtxHeader(flowID string) string {
	return "<!-- mdctx:version=1.0; flow_id=" + ProvValue(flowID) + "; assembly=lexical -->\n\n"
}

// roleHeading is the heading prompt.mdctx puts before a run of system or
// user parts; evidence parts carry their own "## Evidence:" heading.
func roleHeading(r Role) string {
	switch r {
	case System:
		return "# System\n\n"
	case User:
		return "# User Request\n\n"
	}
	return ""
}

// mdctxBlock renders one part as prompt.mdctx carries it. Every block ends
// with a blank line, so blocks concatenate into seed 003's layout.
func mdctxBlock(p *Part) string {
	if p.Role != Evidence {
		body := strings.TrimRight(p.Body, " \t\r\n")
		if body == "" {
			return ""
		}
		return strings.TrimLeft(body, "\r\n") + "\n\n"
	}
	var b strings.Builder
	b.WriteString("## Evidence: ")
	b.WriteString(HeadingText(p.Heading))
	if p.Detail == PathOnly {
		// A one-line mention: where the evidence is, not what it holds.
		b.WriteString(" <!-- ")
		b.WriteString(PathOnlyNote(p.Source))
		b.WriteString(" -->\n\n")
		return b.String()
	}
	b.WriteString("\n<!-- ")
	b.WriteString(provenance(p))
	b.WriteString(" -->\n\n")
	switch p.Detail {
	case Outline:
		writeFenced(&b, p.OutlineText, p.Source.Language)
		b.WriteString("\n")
	default:
		body := strings.Trim(p.Body, "\r\n")
		if body != "" {
			b.WriteString(body)
			b.WriteString("\n\n")
		}
	}
	return b.String()
}

// provenance is the comment under an evidence heading: seed 003's
// source_uri and cid of the part file, then where the content came from,
// so one comment says everything and the part's own comment is not
// repeated. Every value is encoded with ProvValue.
func provenance(p *Part) string {
	var b strings.Builder
	b.WriteString("source_uri=file://")
	b.WriteString(ProvValue(p.File))
	b.WriteString("; cid=")
	b.WriteString(ProvValue(p.CID))
	if s := p.Source; s.URI != "" {
		b.WriteString("; origin=")
		b.WriteString(ProvValue(s.URI))
	}
	p.Source.writeSpan(&b)
	if p.Link {
		b.WriteString("; link=live")
	}
	if p.Detail != Full {
		b.WriteString("; detail=")
		b.WriteString(ProvValue(string(p.Detail)))
	}
	return b.String()
}

// PathOnlyNote is what a path-only part still says about its source, in
// every format: the span, the symbol and the tags it was selected by (seed
// 003's provenance fields that locate it) and "detail=path". The part
// file's cid and uri, which say nothing to the model, stay in ctxplan.json.
func PathOnlyNote(s Source) string {
	var b strings.Builder
	s.writeSpan(&b)
	b.WriteString("; detail=")
	b.WriteString(string(PathOnly))
	return strings.TrimPrefix(b.String(), "; ")
}

// SpanFields renders the span, symbol and tags of seed 003's provenance
// comment: "; span=lines=100:200; symbol=Parse; tags=a,b". A byte span
// also names its lines, which Aptix's Lines field needs. Values are
// encoded with ProvValue, tags with ProvTag.
func (s Source) SpanFields() string {
	var b strings.Builder
	s.writeSpan(&b)
	return b.String()
}

func (s Source) writeSpan(b *strings.Builder) {
	if s.Span != "" {
		b.WriteString("; span=")
		b.WriteString(ProvValue(s.Span))
	}
	if strings.HasPrefix(s.Span, "bytes=") && s.StartLine > 0 {
		b.WriteString("; lines=" + strconv.Itoa(s.StartLine) + ":" + strconv.Itoa(s.EndLine))
	}
	if s.Symbol != "" {
		b.WriteString("; symbol=")
		b.WriteString(ProvValue(s.Symbol))
	}
	if len(s.Tags) > 0 {
		b.WriteString("; tags=")
		for i, t := range s.Tags {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(ProvTag(t))
		}
	}
}

// Fence returns a backtick fence longer than any backtick run in content,
// at least three, so content that holds fences of its own stays intact.
func Fence(content string) string {
	longest, run := 0, 0
	for i := 0; i < len(content); i++ {
		if content[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// Fenced returns content in a fenced block tagged with lang, ending with a
// newline; the fence is longer than any backtick run inside.
func Fenced(content, lang string) string {
	var b strings.Builder
	b.Grow(len(content) + len(lang) + 16)
	writeFenced(&b, content, lang)
	return b.String()
}

// writeFenced writes content in a fenced block tagged with lang; the
// content gets a final newline so the closing fence is on its own line.
func writeFenced(b *strings.Builder, content, lang string) {
	fence := Fence(content)
	b.WriteString(fence)
	b.WriteString(lang)
	b.WriteString("\n")
	b.WriteString(content)
	if content != "" && !strings.HasSuffix(content, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(fence)
	b.WriteString("\n")
}

// ContextHeader opens seed 000's block: "[CONTEXT]" and one blank line.
const ContextHeader = "[CONTEXT]\n\n"

// chunkHeader is seed 000's "=== CHUNK N ===" line, N 1-based.
func chunkHeader(n int) string { return "=== CHUNK " + strconv.Itoa(n) + " ===\n" }

// aptixBlock renders one evidence part as seed 000's chunk without its
// numbered header, which depends on the part's position: Id, Path, Lines,
// Language in that order, a fenced block tagged with the language, and
// the blank line that follows every chunk.
func aptixBlock(p *Part) string {
	code, lang := p.Code, p.Source.Language
	fenceLang := lang
	if code == "" && p.Body != "" {
		// Hand-edited past its one fenced block: the text is markdown now
		// and is fenced as such, but it still stands for its source, whose
		// language the Language field keeps (as Lines keeps its span).
		code, fenceLang = strings.Trim(p.Body, "\r\n")+"\n", "markdown"
		if lang == "" {
			lang = "markdown"
		}
	}
	path, lines := p.Source.Path, p.Source.Lines()
	if path == "" {
		path = p.File
	}
	if lines == "" {
		lines = "1-" + strconv.Itoa(LineCount(code))
	}
	if lang == "" {
		lang, fenceLang = "text", "text"
	}
	if p.Detail == PathOnly {
		// A one-line mention and no chunk: the chunk numbers count what
		// the model can read.
		return "Path only: " + HeadingText(path) + " lines " + lines + " (Id: " + HeadingText(p.ChunkID()) + "; " + PathOnlyNote(p.Source) + ")\n\n"
	}
	if p.Detail == Outline {
		code = p.OutlineText
	}
	var b strings.Builder
	b.Grow(len(code) + len(path) + 64)
	// A file name must not add lines (a forged "=== CHUNK" or "Path:").
	b.WriteString("Id: ")
	b.WriteString(HeadingText(p.ChunkID()))
	b.WriteString("\nPath: ")
	b.WriteString(HeadingText(path))
	b.WriteString("\nLines: ")
	b.WriteString(lines)
	b.WriteString("\nLanguage: ")
	b.WriteString(lang)
	b.WriteString("\n")
	writeFenced(&b, code, fenceLang)
	b.WriteString("\n")
	return b.String()
}

// LineCount counts the lines of s; a last line without a newline counts.
func LineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// instruction is the first text item of seed 000's /responses input: the
// mode and the user parts of the flow but its diagnostics, which are
// context.
func instruction(f *Flow) string {
	var b strings.Builder
	mode := f.Mode
	if mode == "" {
		mode = "ask"
	}
	b.WriteString("[MODE: ")
	b.WriteString(mode)
	b.WriteString("]\n[INSTRUCTION]\n")
	n := 0
	for i := range f.Parts {
		p := &f.Parts[i]
		if p.Role != User || !p.Active() || p.IsDiagnostics() {
			continue // a diagnostics part is in the context block
		}
		if body := strings.TrimSpace(p.Body); body != "" {
			if n > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(body)
			n++
		}
	}
	b.WriteString("\n")
	return b.String()
}

// systemText joins the active system parts: the /responses instructions.
func systemText(f *Flow) string {
	var parts []string
	for i := range f.Parts {
		p := &f.Parts[i]
		if p.Role == System && p.Active() {
			if body := strings.TrimSpace(p.Body); body != "" {
				parts = append(parts, body)
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "\n\n") + "\n"
}
