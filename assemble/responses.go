package assemble

import (
	"bytes"
	"encoding/json"
	"strings"
)

// responses renders seed 000's /responses input: one user message whose
// first text item is the mode and instruction and whose second is the
// [CONTEXT] block. The items are "input_text", the only text item type the
// Responses API accepts in a user message. Active system parts become the request's instructions,
// since seed 000 keeps retrieved context out of the system prompt but a
// flow's policies belong there. Tokens count the texts the model reads,
// not the JSON around them (the API adds a few tokens of framing).
func (a *Assembler) responses(f *Flow, res *Result) {
	segs := a.aptixSegments(f, res)
	ctxTokens := a.total(segs)
	instr, sys := instruction(f), systemText(f)
	instrTokens := a.Count(instr)
	res.ByRole[User] += instrTokens
	res.Tokens = ctxTokens + instrTokens
	var b strings.Builder
	size := 256 + len(instr) + len(sys)
	for _, s := range segs {
		size += len(s.text) + len(s.text)/16
	}
	b.Grow(size)
	b.WriteString("{\n")
	if sys != "" {
		sysTokens := a.Count(sys)
		res.ByRole[System] += sysTokens
		res.Tokens += sysTokens
		b.WriteString(`  "instructions": "`)
		b.WriteString(escapeJSON(sys))
		b.WriteString("\",\n")
	}
	b.WriteString("  \"input\": [\n    {\n      \"role\": \"user\",\n      \"content\": [\n")
	b.WriteString(`        { "type": "input_text", "text": "`)
	b.WriteString(escapeJSON(instr))
	b.WriteString("\" },\n")
	b.WriteString(`        { "type": "input_text", "text": "`)
	for _, s := range segs {
		if s.part < 0 {
			esc, ok := a.escaped[s.text]
			if !ok {
				esc = escapeJSON(s.text)
				a.escaped[s.text] = esc
			}
			b.WriteString(esc)
			continue
		}
		blk := a.block(Aptix, &f.Parts[s.part])
		if blk.escaped == "" {
			blk.escaped = escapeJSON(blk.text)
		}
		b.WriteString(blk.escaped)
	}
	b.WriteString("\" }\n      ]\n    }\n  ]\n}\n")
	for i := range f.Parts {
		if p := &f.Parts[i]; p.Role != Evidence && !p.IsDiagnostics() {
			res.PartTokens[i] = a.block(MDCtx, p).tokens
		}
	}
	res.Text = b.String()
}

// escapeJSON returns s as the inside of a JSON string, exactly as
// encoding/json writes it without HTML escaping. Escaping is applied per
// block and concatenated, which gives the same bytes as escaping the whole
// text because it works character by character.
func escapeJSON(s string) string {
	if plainJSON(s) {
		return s
	}
	var buf bytes.Buffer
	buf.Grow(len(s) + 2 + len(s)/16)
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	out := buf.Bytes()
	return string(out[1 : len(out)-2]) // drop the quotes and the newline
}

// plainJSON reports whether s needs no escaping: printable ASCII without
// quotes or backslashes, the common case for framing strings.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
