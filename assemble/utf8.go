package assemble

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Every format is UTF-8 text, and a model API refuses (or worse, silently
// mangles) anything else. Part files are kept byte for byte as written (a
// Latin-1 source, a part saved in another encoding), so their content ids
// and staleness stay true, and the renderers see a copy in which every
// byte sequence that is not UTF-8 is U+FFFD, as the indexer does for
// sources.

// replacement stands in for bytes that are not UTF-8.
const replacement = "\uFFFD"

// ValidUTF8 reports whether every text of p that a renderer reads is
// UTF-8.
func ValidUTF8(p *Part) bool {
	for _, s := range partTexts(p) {
		if !utf8.ValidString(*s) {
			return false
		}
	}
	for _, t := range p.Source.Tags {
		if !utf8.ValidString(t) {
			return false
		}
	}
	for _, s := range p.SourceSecrets {
		if !utf8.ValidString(s.Text) {
			return false
		}
	}
	return true
}

// partTexts are the string fields of p the renderers read.
func partTexts(p *Part) []*string {
	s := &p.Source
	return []*string{&p.Rank, &p.Kind, &p.File, &p.CID, &p.Heading, &p.Body, &p.Code, &p.OutlineText,
		&s.URI, &s.Path, &s.CID, &s.Span, &s.Language, &s.Symbol}
}

// repairUTF8 makes p's texts UTF-8 in place; p must be a copy.
func repairUTF8(p *Part) {
	for _, s := range partTexts(p) {
		*s = strings.ToValidUTF8(*s, replacement)
	}
	p.Source.Tags = slices.Clone(p.Source.Tags)
	for i, t := range p.Source.Tags {
		p.Source.Tags[i] = strings.ToValidUTF8(t, replacement)
	}
	// Secret pieces are matched against the repaired text.
	p.SourceSecrets = slices.Clone(p.SourceSecrets)
	for i := range p.SourceSecrets {
		p.SourceSecrets[i].Text = strings.ToValidUTF8(p.SourceSecrets[i].Text, replacement)
	}
}

// utf8Key names one check: a part's text is fixed by its file, content id
// and detail, so a flow re-assembled after a toggle checks only what
// changed.
type utf8Key struct {
	file   string
	cid    string
	detail Detail
}

// validText returns f, or a copy of it whose texts are all UTF-8.
func (a *Assembler) validText(f *Flow) *Flow {
	out := f
	if !utf8.ValidString(f.ID) || !utf8.ValidString(f.Mode) {
		out = f.copyParts()
		out.ID = strings.ToValidUTF8(f.ID, replacement)
		out.Mode = strings.ToValidUTF8(f.Mode, replacement)
	}
	for i := range f.Parts {
		p := &f.Parts[i]
		k := utf8Key{p.File, p.CID, p.Detail}
		ok, known := a.utf8ok[k]
		if !known || p.CID == "" {
			ok = ValidUTF8(p)
			if p.CID != "" {
				a.utf8ok[k] = ok
			}
		}
		if ok {
			continue
		}
		if out == f {
			out = f.copyParts()
		}
		repairUTF8(&out.Parts[i])
	}
	return out
}
