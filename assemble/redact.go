package assemble

import (
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/secrets"
)

// Redaction is one secret found in an assembled part: the part, the rule
// that found it and its line (in the source file when the part has a source
// span, else in the part's text).
type Redaction struct {
	Part string `json:"part"`
	Rule string `json:"rule"`
	Line int    `json:"line"`
	// Source is the workspace path the line is in; empty for a line of
	// the part itself.
	Source string `json:"source,omitempty"`
}

// scanned is a part's text with its secrets found and replaced: one per
// part version (file and cid), shared by every format. A part without
// secrets has none.
type scanned struct {
	body, code, outline string
	found               []Redaction
	changed             bool // some text differs from the part's
}

var clean = &scanned{}

// CleanSet remembers the part versions (by cid) in which the secret rules
// found nothing, so a new Assembler — a new process, with the set loaded
// from a file — does not scan them again. It is safe for concurrent use.
type CleanSet struct {
	mu  sync.Mutex
	set map[string]bool
}

// NewCleanSet returns a set holding cids.
func NewCleanSet(cids []string) *CleanSet {
	c := &CleanSet{set: make(map[string]bool, len(cids))}
	for _, id := range cids {
		c.set[id] = true
	}
	return c
}

// Has reports whether the rules found nothing in the content cid.
func (c *CleanSet) Has(cid string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.set[cid]
}

// Add records that the rules found nothing in the content cid.
func (c *CleanSet) Add(cid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.set[cid] = true
}

// Len is the size of the set.
func (c *CleanSet) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.set)
}

// CIDs lists the set, sorted.
func (c *CleanSet) CIDs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.set))
	for id := range c.set {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// SetClean shares a CleanSet with the Assembler (nil: its own).
func (a *Assembler) SetClean(c *CleanSet) {
	if c != nil {
		a.clean = c
	}
}

// redact is the exit gate every format passes: it returns f with the
// secrets of each part's text replaced by [REDACTED:<rule>] (or, when
// f.AllowSecrets, f itself), and lists what it found either way. Scans are
// remembered by part version, so re-assembly after a toggle scans nothing;
// f itself is returned when nothing needs replacing.
func (a *Assembler) redact(f *Flow, format Format, res *Result) *Flow {
	var out *Flow
	for i := range f.Parts {
		p := &f.Parts[i]
		s := a.scan(p)
		if p.Active() {
			res.Redactions = append(res.Redactions, s.found...)
		}
		if f.AllowSecrets || !s.changed {
			continue
		}
		if out == nil {
			out = f.copyParts()
		}
		q := &out.Parts[i]
		q.Body, q.Code, q.OutlineText = s.body, s.code, s.outline
	}
	if format == Pack && !f.AllowSecrets {
		if out == nil {
			out = f.copyParts()
		}
		out.Pack = redactPack(f.Pack)
	}
	if out == nil {
		return f
	}
	return out
}

// copyParts is a copy of f whose parts can be changed.
func (f *Flow) copyParts() *Flow {
	out := *f
	out.Parts = slices.Clone(f.Parts)
	return &out
}

// scan is scanPart remembered by part version (see redact).
func (a *Assembler) scan(p *Part) *scanned {
	k := scanKey{file: strings.TrimSuffix(p.File, ".skip"), cid: p.CID, pieces: piecesKey(p.SourceSecrets)}
	if s, ok := a.scans[k]; ok {
		return s
	}
	if p.CID != "" && k.pieces == "" && a.clean.Has(p.CID) {
		a.scans[k] = clean
		return clean
	}
	s := scanPart(p)
	if s == clean && p.CID != "" && k.pieces == "" {
		a.clean.Add(p.CID)
	}
	a.scans[k] = s
	return s
}

// RedactPart returns p with its texts as every format carries them, each
// secret replaced by its marker, and the secrets found: the redaction of
// Assemble for an exit that sends one span of a source alone (a tool's
// read of it). Give p the source's SourceSecrets and the span is redacted
// whatever it cuts.
func RedactPart(p Part) (Part, []Redaction) {
	s := scanPart(&p)
	if s.changed {
		p.Body, p.Code, p.OutlineText = s.body, s.code, s.outline
	}
	return p, s.found
}

// scanPart finds and replaces the secrets of p's texts; clean when there
// are none.
func scanPart(p *Part) *scanned {
	s := &scanned{}
	// The source's pieces first, so a line keeps its place; then whatever
	// the part's own text shows. The code's ends may cut a piece (a byte
	// range): the body holds the code, so it takes the code's redaction.
	body, code := p.Body, p.Code
	hit := map[int]bool{}
	if code != "" {
		red := RedactPieces(code, p.SourceSecrets, hit)
		body, code = strings.Replace(body, code, red, 1), red
	}
	body = RedactPieces(body, p.SourceSecrets, hit)
	outline := RedactPieces(p.OutlineText, p.SourceSecrets, hit)
	reported := map[int]bool{}
	for i, x := range p.SourceSecrets {
		if hit[i] && !reported[x.ID] {
			reported[x.ID] = true // at its first line the span holds
			s.found = append(s.found, Redaction{Part: p.ID(), Rule: x.Rule, Line: x.Line, Source: p.Source.Path})
		}
	}
	fs := secrets.Scan(p.Source.Path, body)
	s.body = secrets.Redact(body, fs)
	// Code is the inside of the body's fence: its findings are the body's.
	var cfs []secrets.Finding
	if at := strings.Index(body, code); code != "" && at >= 0 {
		cfs = secrets.Shift(fs, at, at+len(code), strings.Count(body[:at], "\n")+1)
		s.code = secrets.Redact(code, cfs)
	} else {
		s.code, cfs = secrets.RedactString(p.Source.Path, code)
	}
	s.outline, _ = secrets.RedactString(p.Source.Path, outline)
	s.changed = s.body != p.Body || s.code != p.Code || s.outline != p.OutlineText
	switch {
	case len(cfs) > 0 && p.Source.StartLine > 0:
		// Code lines map onto the source span.
		for _, x := range cfs {
			s.found = append(s.found, Redaction{Part: p.ID(), Rule: x.Rule, Line: p.Source.StartLine + x.Line - 1, Source: p.Source.Path})
		}
	default:
		for _, x := range fs {
			s.found = append(s.found, Redaction{Part: p.ID(), Rule: x.Rule, Line: x.Line})
		}
	}
	if !s.changed && len(s.found) == 0 {
		return clean
	}
	return s
}

// RedactPieces replaces in text, a span of a source file, the pieces of
// that file's secrets (see Part.SourceSecrets) by their markers: every
// piece it holds, and its first or last line where a byte range starts or
// ends inside one. Each line of a secret becomes one marker, so the lines
// keep their numbers. It is the first step of every exit's redaction, and
// of the workbench's preview; the indexes of the pieces it replaced are
// set in hit (nil: not wanted).
func RedactPieces(text string, pieces []SourceSecret, hit map[int]bool) string {
	for i, x := range pieces {
		marker := secrets.Marker(x.Rule)
		t := text
		if strings.Contains(t, x.Text) {
			t = strings.ReplaceAll(t, x.Text, marker)
		}
		// A byte range may start or end inside the piece.
		t = cutEnds(t, x.Text, marker)
		if t != text && hit != nil {
			hit[i] = true
		}
		text = t
	}
	return text
}

// scanKey is what a part's scan depends on.
type scanKey struct{ file, cid, pieces string }

func piecesKey(ps []SourceSecret) string {
	if len(ps) == 0 {
		return ""
	}
	h := sha256.New()
	for _, x := range ps {
		fmt.Fprintf(h, "%d\x00%s\x00%d\x00%s\x00", x.ID, x.Rule, x.Line, x.Text)
	}
	return string(h.Sum(nil))
}

// cutEnds replaces the first line of code when it ends a piece, and its
// last when it starts one (a byte span cut inside a secret), or the whole
// of a one-line code inside a piece; at least MinPiece bytes of the piece
// must be there.
func cutEnds(code, piece, marker string) string {
	if code == "" {
		return code
	}
	first, rest, multi := strings.Cut(code, "\n")
	if !multi {
		if t := strings.TrimSuffix(first, "\r"); len(t) >= MinPiece && strings.Contains(piece, t) {
			return marker
		}
		return code
	}
	if t := strings.TrimSuffix(first, "\r"); len(t) >= MinPiece && strings.HasSuffix(piece, t) {
		code = marker + "\n" + rest
	}
	body, last := code, code
	if i := strings.LastIndexByte(strings.TrimSuffix(code, "\n"), '\n'); i >= 0 {
		body, last = code[:i+1], code[i+1:]
	}
	if t := strings.TrimRight(last, "\r\n"); len(t) >= MinPiece && strings.HasPrefix(piece, t) {
		code = body + marker + last[len(t):]
	}
	return code
}

// MinPiece is the fewest bytes of a secret's piece replaced by its text:
// shorter ones would hit other text.
const MinPiece = 8

// redactPack replaces secrets in what the context pack carries besides the
// parts: tool output and the conversation.
func redactPack(in PackInput) PackInput {
	out := in
	out.Terminal, _ = secrets.RedactString("", in.Terminal)
	if len(in.Diagnostics) > 0 {
		out.Diagnostics = make([]Diagnostic, len(in.Diagnostics))
		for i, d := range in.Diagnostics {
			d.Message, _ = secrets.RedactString("", d.Message)
			out.Diagnostics[i] = d
		}
	}
	if len(in.History) > 0 {
		out.History = make([]Message, len(in.History))
		for i, m := range in.History {
			m.Content, _ = secrets.RedactString("", m.Content)
			out.History[i] = m
		}
	}
	return out
}
