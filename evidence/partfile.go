package evidence

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/dossierhq/dossier/assemble"
)

// CID is seed 003's content id: "sha256:" and the hex digest.
func CID(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// evidenceHeading starts an evidence part file.
const evidenceHeading = "## Evidence: "

// parsed is what a part file's text says about itself.
type parsed struct {
	heading string
	source  assemble.Source
	body    string // without heading and provenance
	code    string // inside of the fence when the body is one fenced block
	lang    string
	// damage says why the text cannot be what dossier or a person meant
	// (a comment or fence never closed: the file was cut short), or "".
	damage string
}

// parseEvidence reads an evidence part: an optional "## Evidence: path"
// heading, an optional provenance comment, then the body. A body that is
// exactly one fenced block yields its inside as code. Hand-written parts
// without heading or comment are prose.
func parseEvidence(text string) parsed {
	var p parsed
	rest := strings.TrimLeft(text, "\r\n")
	if line, after, ok := cutLine(rest); ok && strings.HasPrefix(line, evidenceHeading) {
		p.heading = strings.TrimSpace(strings.TrimPrefix(line, evidenceHeading))
		rest = after
	}
	if line, after, ok := cutLine(strings.TrimLeft(rest, "\r\n")); ok && strings.HasPrefix(line, "<!--") {
		if !strings.HasSuffix(strings.TrimSpace(line), "-->") {
			p.damage = "its provenance comment is not closed (no -->)"
			return p
		}
		p.source = parseProvenance(line)
		p.damage = provenanceDamage(line, p.source)
		rest = after
	}
	p.body = strings.Trim(rest, "\r\n")
	if p.damage == "" {
		p.damage = openFence(p.body)
	}
	if p.damage == "" && p.heading != "" && p.source.CID == "" && (p.body == "" || strings.HasPrefix("<!--", p.body)) {
		p.damage = "it ends after its heading"
	}
	p.code, p.lang = unfence(p.body)
	if p.source.Language == "" {
		p.source.Language = p.lang
	}
	return p
}

// provenanceDamage checks a comment that claims to be provenance (it names
// a source_uri or a cid): the cid must be a sha256 and the span one of
// all, lines=A:B or bytes=A:B. Other comments are the author's own.
func provenanceDamage(line string, s assemble.Source) string {
	if !strings.Contains(line, "source_uri=") && !strings.Contains(line, "cid=") {
		return ""
	}
	digest, ok := strings.CutPrefix(s.CID, "sha256:")
	if !ok || len(digest) != 64 || strings.Trim(digest, "0123456789abcdef") != "" {
		return fmt.Sprintf("its provenance cid %q is not sha256:<64 hex digits>", s.CID)
	}
	if s.Span == "" || s.Span == "all" {
		return ""
	}
	if v, ok := strings.CutPrefix(s.Span, "bytes="); ok {
		a, b, _ := strings.Cut(v, ":")
		from, err1 := strconv.Atoi(a)
		to, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil && 0 <= from && from <= to {
			return ""
		}
	} else if s.StartLine > 0 {
		return ""
	}
	return fmt.Sprintf("its provenance span %q is not all, lines=A:B or bytes=A:B", s.Span)
}

// openFence names a code fence of body that is never closed: the rest of
// the prompt would be read as its code. Fences are CommonMark's: three or
// more backticks or tildes, closed by a run of the same character at
// least as long with nothing after it.
func openFence(body string) string {
	var fence string
	at := 0
	for i, line := range strings.Split(body, "\n") {
		l := strings.TrimRight(strings.TrimLeft(line, " "), " \t\r")
		if len(line)-len(strings.TrimLeft(line, " ")) > 3 {
			continue
		}
		if fence != "" {
			if strings.HasPrefix(l, fence) && strings.Trim(l, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		for _, c := range []string{"`", "~"} {
			n := len(l) - len(strings.TrimLeft(l, c))
			if n >= 3 && !(c == "`" && strings.Contains(l[n:], "`")) {
				fence, at = l[:n], i+1
			}
		}
	}
	if fence == "" {
		return ""
	}
	return fmt.Sprintf("the code fence opened on line %d of its body is never closed", at)
}

// cutLine splits off the first line (without its line break).
func cutLine(s string) (line, rest string, ok bool) {
	if s == "" {
		return "", "", false
	}
	line, rest, _ = strings.Cut(s, "\n")
	return strings.TrimSuffix(line, "\r"), rest, true
}

// parseProvenance reads <!-- key=value; key=value -->, decoding the values
// (assemble.ParseProvValue); plain values from before the encoding read
// back as they were.
func parseProvenance(line string) assemble.Source {
	var s assemble.Source
	inner := strings.TrimSpace(line)
	inner = strings.TrimSuffix(strings.TrimPrefix(inner, "<!--"), "-->")
	for _, kv := range strings.Split(inner, ";") {
		k, raw, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			continue
		}
		v := assemble.ParseProvValue(raw)
		switch k {
		case "source_uri":
			s.URI = v
			s.Path = strings.TrimPrefix(v, "file://")
		case "cid":
			s.CID = v
		case "span":
			s.Span = v
			s.StartLine, s.EndLine = spanLines(v)
		case "tags":
			for _, t := range strings.Split(raw, ",") {
				if t = strings.TrimSpace(t); t != "" {
					s.Tags = append(s.Tags, assemble.ParseProvValue(t))
				}
			}
		case "lines":
			if s.StartLine == 0 {
				s.StartLine, s.EndLine = spanLines("lines=" + v)
			}
		case "symbol":
			s.Symbol = v
		case "lang":
			s.Language = v
		case "anchor":
			s.Anchor = v
		case "commit":
			s.Commit = v
		case "dirty":
			s.Dirty = v == "yes"
		case "file":
			s.File = v
		}
	}
	return s
}

// spanLines reads the line numbers of "lines=100:200"; a byte span's
// lines come from the separate "lines=" key the part file carries.
func spanLines(span string) (int, int) {
	v, ok := strings.CutPrefix(span, "lines=")
	if !ok {
		return 0, 0
	}
	a, b, _ := strings.Cut(v, ":")
	start, err1 := strconv.Atoi(a)
	end, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil || start < 1 || end < start {
		return 0, 0
	}
	return start, end
}

// unfence returns the inside and language of a body that is exactly one
// fenced block, or empty strings.
func unfence(body string) (string, string) {
	first, rest, ok := cutLine(body)
	if !ok || !strings.HasPrefix(first, "```") {
		return "", ""
	}
	n := 0
	for n < len(first) && first[n] == '`' {
		n++
	}
	fence, lang := first[:n], strings.TrimSpace(first[n:])
	if strings.ContainsAny(lang, " `") {
		return "", ""
	}
	rest = strings.TrimRight(rest, "\r\n")
	closing := strings.LastIndexByte(rest, '\n')
	last := rest[closing+1:]
	if strings.TrimRight(last, "\r") != fence {
		if rest == fence {
			return "", lang // an empty block
		}
		return "", ""
	}
	if closing < 0 {
		return "", lang
	}
	inner := rest[:closing+1]
	if strings.Contains(inner, "\n"+fence+"\n") || strings.HasPrefix(inner, fence+"\n") {
		return "", "" // more than one block
	}
	return inner, lang
}

// pristine reports whether text is byte for byte what renderEvidence
// writes for the content its own provenance names: the code's cid is the
// comment's, and rendering that code with that provenance gives text back.
// Anything else (a note beside the fence, a changed line, a missing
// comment) is a hand edit that refresh must not overwrite silently.
func pristine(text string) bool {
	x := parseEvidence(text)
	if x.source.CID == "" {
		return false
	}
	// The fenced content ends with a newline the source span may lack.
	for _, code := range []string{x.code, strings.TrimSuffix(x.code, "\n")} {
		if CID([]byte(code)) == x.source.CID && renderEvidence(x.source, code) == text {
			return true
		}
	}
	return false
}

// writeTracking adds what only the part file keeps of its source: the
// anchor its span is found again by, and the commit it was taken at, with
// "dirty=yes" when the file differed from that commit.
func writeTracking(b *strings.Builder, src assemble.Source) {
	if src.Anchor != "" {
		b.WriteString("; anchor=")
		b.WriteString(assemble.ProvValue(src.Anchor))
	}
	if src.File != "" {
		b.WriteString("; file=")
		b.WriteString(assemble.ProvValue(src.File))
	}
	if src.Commit != "" {
		b.WriteString("; commit=")
		b.WriteString(assemble.ProvValue(src.Commit))
		if src.Dirty {
			b.WriteString("; dirty=yes")
		}
	}
}

// renderEvidence writes an evidence part file: heading, provenance and the
// content in a fence long enough for what it holds. Values in the comment
// are encoded (assemble.ProvValue), so no file name closes or rewrites it.
func renderEvidence(src assemble.Source, content string) string {
	var b strings.Builder
	b.Grow(len(content) + 256)
	b.WriteString(evidenceHeading)
	b.WriteString(assemble.HeadingText(src.Path))
	b.WriteString("\n<!-- source_uri=")
	b.WriteString(assemble.ProvValue(src.URI))
	b.WriteString("; cid=")
	b.WriteString(assemble.ProvValue(src.CID))
	b.WriteString(src.SpanFields())
	writeTracking(&b, src)
	b.WriteString(" -->\n\n")
	b.WriteString(assemble.Fenced(content, src.Language))
	return b.String()
}
