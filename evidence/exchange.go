package evidence

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/assemble/send"
)

// exchange is one turn's texts, cut from the flow as seed 000 lays them
// out, redacted as every exit is.
type exchange struct {
	Instructions string // the system parts
	Instruction  string // [MODE: ...] + [INSTRUCTION] + the request or the follow-up
	Context      string // the [CONTEXT] block
	Tokens       int
	Redactions   []assemble.Redaction
}

// followUpKind is the kind of the part a follow-up stands in as, the name
// its secrets are reported under.
const followUpKind = "follow-up"

// exchange assembles the flow in the responses format, which is seed 000's
// request, and takes its three texts apart. A follow-up stands in for the
// flow's request parts (it is the new instruction; the request went with
// turn 1), and goes through the same redaction as a part.
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
	res := a.Assemble(snap, assemble.Responses)
	x, err := splitResponses(res.Text)
	if err != nil {
		return exchange{}, err
	}
	x.Tokens, x.Redactions = res.Tokens, res.Redactions
	return x, nil
}

// textPart is a user part holding text that is not a file of the flow.
func textPart(kind, text string) assemble.Part {
	return assemble.Part{Rank: "999", Kind: kind, Role: assemble.User, Status: assemble.Active,
		File: "turns/" + kind, CID: CID([]byte(text)), Bytes: len(text), Body: text}
}

// splitResponses takes the responses format's output apart: its
// instructions and the two text items of its one user message.
func splitResponses(text string) (exchange, error) {
	var doc struct {
		Instructions string `json:"instructions"`
		Input        []struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal([]byte(text), &doc); err != nil || len(doc.Input) != 1 || len(doc.Input[0].Content) != 2 {
		return exchange{}, fmt.Errorf("internal error: the responses format gave no instruction and context (%v)", err)
	}
	c := doc.Input[0].Content
	x := exchange{Instructions: doc.Instructions, Instruction: c[0].Text, Context: c[1].Text}
	if strings.TrimSpace(x.Context) == strings.TrimSpace(assemble.ContextHeader) {
		x.Context = "" // no evidence: the message has the instruction only
	}
	return x, nil
}

// redactHistory passes the earlier turns through the exit's redaction:
// their files are hand-editable, so what they hold now is what is checked.
// Secrets are reported as in turn N's instruction or answer.
func (e *Engine) redactHistory(turns []Turn) ([]send.Turn, []assemble.Redaction, error) {
	a, err := e.assembler()
	if err != nil {
		return nil, nil, err
	}
	out := make([]send.Turn, 0, len(turns))
	var found []assemble.Redaction
	for _, t := range turns {
		h := send.Turn{ResponseID: t.ResponseID, Instruction: t.Instruction, Answer: t.Text}
		for _, x := range []struct {
			kind string
			text *string
		}{{fmt.Sprintf("turn-%03d-instruction", t.N), &h.Instruction}, {fmt.Sprintf("turn-%03d-answer", t.N), &h.Answer}} {
			snap := &assemble.Flow{ID: "history", Mode: "history", AllowSecrets: e.AllowSecrets, Parts: []assemble.Part{textPart(x.kind, *x.text)}}
			res := a.Assemble(snap, assemble.Responses)
			found = append(found, res.Redactions...)
			if len(res.Redactions) == 0 || e.AllowSecrets {
				continue // the text goes as it is, white space and all
			}
			sp, err := splitResponses(res.Text)
			if err != nil {
				return nil, nil, err
			}
			*x.text = strings.TrimSuffix(strings.TrimPrefix(sp.Instruction, "[MODE: history]\n[INSTRUCTION]\n"), "\n")
		}
		out = append(out, h)
	}
	return out, found, nil
}
