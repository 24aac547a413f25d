package assemble

import "github.com/dossierhq/dossier/index/secrets"

// Exchange is what one send to an LLM endpoint carries, as three texts:
// seed 000's layout, the same texts the responses format writes (there
// JSON-escaped), redacted as every exit is.
type Exchange struct {
	// Instructions is the active system parts' text: the Responses
	// request's instructions, a chat system message; "" when the flow has
	// no system part.
	Instructions string
	// Instruction is the user message's first item: "[MODE: ...]",
	// "[INSTRUCTION]" and the active user parts.
	Instruction string
	// Context is the user message's second item, the Aptix [CONTEXT]
	// block of the active evidence and diagnostics.
	Context string
	// Token counts of the three texts and their sum (the API adds a few
	// tokens of message framing).
	InstructionsTokens, InstructionTokens, ContextTokens, Tokens int
	Encoding                                                     string
	Exact                                                        bool
	// Redactions lists the secrets found in active parts: replaced by
	// [REDACTED:<rule>] in the texts, or sent as they are when the flow
	// allows secrets.
	Redactions []Redaction
}

// Exchange returns the texts a send of f carries. It passes the same exit
// gate as Assemble (text validation, then redaction unless f.AllowSecrets),
// so a send carries exactly what `assemble --format responses` shows.
func (a *Assembler) Exchange(f *Flow) Exchange {
	a.round++
	defer a.prune(len(f.Parts))
	res := Result{Format: Responses, PartTokens: make([]int, len(f.Parts)), ByRole: map[Role]int{}}
	a.raw = f.AllowSecrets
	f = a.validText(f)
	f = a.redact(f, Responses, &res)
	x := Exchange{
		Instructions: systemText(f),
		Instruction:  instruction(f),
		Encoding:     a.counter.Encoding(),
		Exact:        a.counter.Exact(),
		Redactions:   res.Redactions,
	}
	x.Context, x.ContextTokens = a.join(a.aptixSegments(f, &res))
	if x.Instructions != "" {
		x.InstructionsTokens = a.Count(x.Instructions)
	}
	x.InstructionTokens = a.Count(x.Instruction)
	x.Tokens = x.InstructionsTokens + x.InstructionTokens + x.ContextTokens
	return x
}

// RedactText replaces the secrets in a text that leaves with a send but is
// no part of the flow: an earlier turn's instruction or answer as its file
// holds it (hand edits included). It is the rule the pack's conversation
// history follows (redactPack); the redactions name the turn as their part.
func RedactText(turn, text string) (string, []Redaction) {
	out, fs := secrets.RedactString("", text)
	var found []Redaction
	for _, x := range fs {
		found = append(found, Redaction{Part: turn, Rule: x.Rule, Line: x.Line})
	}
	return out, found
}
