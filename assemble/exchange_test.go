package assemble

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble/tokens"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// TestExchangeIsTheResponsesFormat checks that Exchange's texts are the
// ones the responses format writes, token counts included, and that they
// pass the same redaction (a secret in a user part and in evidence), or
// keep the secrets when the flow allows them.
func TestExchangeIsTheResponsesFormat(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for _, allow := range []bool{false, true} {
		f := secretFlow()
		f.Parts = append(f.Parts, Part{Rank: "030", Kind: "note", Role: User, Status: Active,
			File: "ctx/user/030_note.user.md", CID: "sha256:note", Body: "Use token " + secrettest.GitHub + " to log in.\n"})
		f.AllowSecrets = allow
		a := NewAssembler(c, nil)
		x := a.Exchange(f)
		res := NewAssembler(c, nil).Assemble(f, Responses)
		var doc struct {
			Instructions string `json:"instructions"`
			Input        []struct {
				Content []struct{ Type, Text string } `json:"content"`
			} `json:"input"`
		}
		if err := json.Unmarshal([]byte(res.Text), &doc); err != nil {
			t.Fatal(err)
		}
		items := doc.Input[0].Content
		if x.Instructions != doc.Instructions || x.Instruction != items[0].Text || x.Context != items[1].Text {
			t.Errorf("allow %v: exchange differs from the responses format:\n%q\n%q\n%q", allow, x.Instructions, x.Instruction, x.Context)
		}
		if items[0].Type != "input_text" || items[1].Type != "input_text" {
			t.Errorf("item types %q, %q, want input_text", items[0].Type, items[1].Type)
		}
		if x.Instructions == "" || !strings.HasPrefix(x.Instruction, "[MODE: ") || !strings.HasPrefix(x.Context, ContextHeader) {
			t.Errorf("allow %v: texts missing: %q / %q / %q", allow, x.Instructions, x.Instruction, x.Context)
		}
		if x.Tokens != res.Tokens || x.Tokens != x.InstructionsTokens+x.InstructionTokens+x.ContextTokens || x.ContextTokens == 0 {
			t.Errorf("allow %v: tokens %d (%d+%d+%d), responses format %d", allow, x.Tokens, x.InstructionsTokens, x.InstructionTokens, x.ContextTokens, res.Tokens)
		}
		if got, want := mustJSON(x.Redactions), mustJSON(res.Redactions); got != want || len(x.Redactions) < 5 {
			t.Errorf("allow %v: redactions %s, responses format %s", allow, got, want)
		}
		all := x.Instructions + x.Instruction + x.Context
		for _, s := range secrettest.All() {
			first := strings.SplitN(s, "\n", 2)[0]
			if strings.Contains(all, first) != allow {
				t.Errorf("allow %v: secret %q present = %v", allow, first, !allow)
			}
		}
		if strings.Contains(x.Instruction, secrettest.GitHub) != allow {
			t.Errorf("allow %v: the user part's secret: %q", allow, x.Instruction)
		}
	}
}

func TestRedactText(t *testing.T) {
	text := "line one\nthe key " + secrettest.AWSKey + " again\n"
	got, found := RedactText("turn 2", text)
	if strings.Contains(got, secrettest.AWSKey) || !strings.Contains(got, "[REDACTED:aws-access-token]") {
		t.Errorf("RedactText = %q", got)
	}
	if len(found) != 1 || found[0] != (Redaction{Part: "turn 2", Rule: "aws-access-token", Line: 2}) {
		t.Errorf("redactions %+v", found)
	}
	if got, found := RedactText("t", "nothing here"); got != "nothing here" || found != nil {
		t.Errorf("clean text: %q %v", got, found)
	}
}
