package evidence

import (
	"fmt"
	"strings"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/assemble/send"
)

// exchange is one turn's texts (assemble.Exchange) with the secrets
// found in them.
type exchange struct {
	Instructions, Instruction, Context string
	Tokens                             int
	Redactions                         []assemble.Redaction
}

// followUpKind is the kind of the part a follow-up stands in as, the name
// its secrets are reported under.
const followUpKind = "follow-up"

// exchange cuts the flow's three texts as seed 000 lays them out, through
// the exit gate every assembly passes (assemble.Exchange). A follow-up
// stands in for the flow's request parts (it is the new instruction; the
// request went with turn 1) and goes through the same redaction as a part.
func (e *Engine) exchange(f *Flow, followUp string) (exchange, error) {
	a, err := e.assembler()
	if err != nil {
		return exchange{}, err
	}
	snap := f.Snapshot()
	snap.Budget = e.Budget()
	snap.AllowSecrets = e.AllowSecrets
	e.markSourceSecrets(snap)
	asked := false
	for i := range snap.Parts {
		p := &snap.Parts[i]
		if p.Role != assemble.User || !p.Active() || p.IsDiagnostics() {
			continue
		}
		if followUp != "" {
			p.Status = assemble.Skipped
		} else if strings.TrimSpace(p.Body) != "" {
			asked = true
		}
	}
	if followUp != "" {
		snap.Parts = append(snap.Parts, textPart(followUpKind, followUp))
	} else if !asked {
		return exchange{}, ErrNoRequest
	}
	ax := a.Exchange(snap)
	for i := range ax.Redactions {
		if r := &ax.Redactions[i]; r.Part == textPartID(followUpKind) {
			r.Part = "the follow-up"
		}
	}
	x := exchange{Instructions: ax.Instructions, Instruction: ax.Instruction, Context: ax.Context, Tokens: ax.Tokens, Redactions: ax.Redactions}
	if strings.TrimSpace(x.Context) == strings.TrimSpace(assemble.ContextHeader) {
		x.Context = "" // no evidence: the message has the instruction only
	}
	return x, nil
}

// textPartID is the id of the textPart of kind.
func textPartID(kind string) string { return "999_" + kind }

// textPart is a user part holding text that is not a file of the flow.
func textPart(kind, text string) assemble.Part {
	return assemble.Part{Rank: "999", Kind: kind, Role: assemble.User, Status: assemble.Active,
		File: "turns/" + kind, CID: CID([]byte(text)), Bytes: len(text), Body: text}
}

// redactHistory passes the earlier turns through the exit's redaction
// (assemble.RedactText): their files are hand-editable, so what they hold
// now is what is checked. Secrets are reported as in turn N's instruction
// or answer (an answer's lines are its file's; an instruction's, its
// own); [secrets] allow sends them as they are.
func (e *Engine) redactHistory(turns []Turn, endpoint string) ([]send.Turn, []assemble.Redaction) {
	out := make([]send.Turn, 0, len(turns))
	var secrets []assemble.Redaction
	for _, t := range turns {
		h := send.Turn{Instruction: t.Instruction, Answer: t.Text}
		if t.Status == send.StatusCompleted && t.Endpoint == endpoint {
			// Only a whole answer from this very server can be chained
			// to: a cancelled one is not what the server holds, and
			// another endpoint does not know the id.
			h.ResponseID = t.ResponseID
		}
		for _, x := range []struct {
			text *string
			name string
			line int // the file's line where the text starts
		}{{&h.Instruction, fmt.Sprintf("turn %d's instruction (%s)", t.N, t.Request), 1}, {&h.Answer, fmt.Sprintf("turn %d's answer (%s)", t.N, t.Answer), t.textLine}} {
			red, found := assemble.RedactText(x.name, *x.text)
			for _, r := range found {
				r.Line += max(x.line, 1) - 1
				secrets = append(secrets, r)
			}
			if !e.AllowSecrets {
				*x.text = red
			}
		}
		out = append(out, h)
	}
	return out, secrets
}
