package assemble

import (
	"strings"

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
// part version (file and cid), shared by every format.
type scanned struct {
	body, code, outline string
	found               []Redaction
}

// redact is the exit gate every format passes: it returns f with the
// secrets of each part's text replaced by [REDACTED:<rule>] (or, when
// f.AllowSecrets, f itself), and lists what it found either way. Scans are
// remembered by part version, so re-assembly after a toggle scans nothing.
func (a *Assembler) redact(f *Flow, res *Result) *Flow {
	out := *f
	out.Parts = make([]Part, len(f.Parts))
	for i := range f.Parts {
		p := f.Parts[i]
		s := a.scan(&p)
		if p.Active() {
			res.Redactions = append(res.Redactions, s.found...)
		}
		if !f.AllowSecrets {
			p.Body, p.Code, p.OutlineText = s.body, s.code, s.outline
		}
		out.Parts[i] = p
	}
	if !f.AllowSecrets {
		out.Pack = redactPack(f.Pack)
	}
	return &out
}

func (a *Assembler) scan(p *Part) *scanned {
	k := blockKey{file: p.File, cid: p.CID}
	if s, ok := a.scans[k]; ok {
		return s
	}
	s := &scanned{}
	fs := secrets.Scan(p.Source.Path, p.Body)
	s.body = secrets.Redact(p.Body, fs)
	// Code is the inside of the body's fence: its findings are the body's.
	var cfs []secrets.Finding
	if at := strings.Index(p.Body, p.Code); p.Code != "" && at >= 0 {
		cfs = secrets.Shift(fs, at, at+len(p.Code), strings.Count(p.Body[:at], "\n")+1)
		s.code = secrets.Redact(p.Code, cfs)
	} else {
		s.code, cfs = secrets.RedactString(p.Source.Path, p.Code)
	}
	s.outline, _ = secrets.RedactString(p.Source.Path, p.OutlineText)
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
	a.scans[k] = s
	return s
}

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
