package evidence

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/secrets"
)

// sourceScan is what the secret rules found in one source file at one
// size and time: each secret as its pieces, one per line.
type sourceScan struct {
	size, mtime int64
	found       []lineSecret
}

// lineSecret is a secret of a source file cut at its line breaks.
type lineSecret struct {
	rule   string
	line   int      // the line of pieces[0]
	pieces []string // pieces[i] is on line+i, without its line break
}

// markSourceSecrets gives each evidence part of a span of its source file
// the line pieces of every secret in that file. A span may cut a secret
// (the middle lines of a private key, a value whose key is outside it, a
// byte range ending mid-key) so that no scan of the part alone would find
// it; the source file, scanned whole, does. The pieces are matched by
// content, not by line, so a part taken before its source changed is
// covered too. Parts of whole files and links need none: their own scan
// sees all there is.
func (e *Engine) markSourceSecrets(snap *assemble.Flow) {
	for i := range snap.Parts {
		p := &snap.Parts[i]
		src := p.Source
		if p.Role == assemble.Evidence && strings.HasPrefix(src.URI, gitPrefix) {
			p.SourceSecrets = append(p.SourceSecrets, e.diffSecrets(p.Code)...)
			continue
		}
		if p.Role != assemble.Evidence || p.Link || src.Path == "" || src.Span == "all" {
			continue
		}
		p.SourceSecrets = append(p.SourceSecrets, e.sourcePieces(src.Path)...)
	}
}

// sourcePieces are the line pieces of every secret in the workspace file
// rel, long enough to be matched by content (assemble.MinPiece).
func (e *Engine) sourcePieces(rel string) []assemble.SourceSecret {
	return appendPieces(nil, e.sourceSecrets(rel))
}

// appendPieces appends the pieces of found long enough to be matched by
// content, numbering the secrets on from the last ID in out.
func appendPieces(out []assemble.SourceSecret, found []lineSecret) []assemble.SourceSecret {
	id0 := 0
	if len(out) > 0 {
		id0 = out[len(out)-1].ID + 1
	}
	for i, s := range found {
		for j, piece := range s.pieces {
			if len(strings.TrimSpace(piece)) >= assemble.MinPiece {
				out = append(out, assemble.SourceSecret{ID: id0 + i, Rule: s.rule, Line: s.line + j, Text: piece})
			}
		}
	}
	return out
}

// lineSecrets scans text, the file rel, and cuts each secret found at its
// line breaks.
func lineSecrets(rel, text string) []lineSecret {
	var out []lineSecret
	for _, f := range secrets.Scan(rel, text) {
		pieces := strings.Split(text[f.Start:f.End], "\n")
		for j := range pieces {
			pieces[j] = strings.TrimSuffix(pieces[j], "\r")
		}
		out = append(out, lineSecret{rule: f.Rule, line: f.Line, pieces: pieces})
	}
	return out
}

// RedactSpan returns text, a span of the workspace file rel starting on
// line start (lines, bytes or a definition, as ExtractSpan reads them),
// redacted as assembling a part of that span redacts it
// (assemble.RedactPart): the whole file is scanned, so a span holding only
// a private key's middle lines, or a byte range ending inside it, is
// redacted too. Each line of a secret the file holds becomes one marker,
// whatever the span, so the lines after it keep their numbers. It is for
// the exits that send a span without a flow: the MCP server's read and
// search.
func (e *Engine) RedactSpan(rel string, start int, text string) string {
	p := assemble.Part{Role: assemble.Evidence, Source: assemble.Source{Path: rel, StartLine: start},
		Body: text, Code: text, SourceSecrets: e.sourcePieces(rel)}
	p, _ = assemble.RedactPart(p)
	return p.Code
}

// sourceSecrets scans a workspace file, remembered by size and time; the
// clean set spares files the rules found nothing in before.
func (e *Engine) sourceSecrets(rel string) []lineSecret {
	abs := filepath.Join(e.Root, filepath.FromSlash(rel))
	st, err := os.Stat(abs)
	if err != nil {
		return nil
	}
	if s, ok := e.srcScans[rel]; ok && s.size == st.Size() && s.mtime == st.ModTime().UnixNano() {
		return s.found
	}
	s := sourceScan{size: st.Size(), mtime: st.ModTime().UnixNano()}
	if raw, err := ReadRegular(abs, resolveRoots(e.Root)); err == nil {
		cid := CID(raw)
		if e.clean == nil || !e.clean.Has(cid) {
			s.found = lineSecrets(rel, string(raw))
			if len(s.found) == 0 && e.clean != nil {
				e.clean.Add(cid)
			}
		}
	}
	if e.srcScans == nil {
		e.srcScans = map[string]sourceScan{}
	}
	e.srcScans[rel] = s
	return s.found
}
