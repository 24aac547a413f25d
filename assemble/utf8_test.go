package assemble

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dossierhq/dossier/assemble/tokens"
)

// TestEveryFormatIsUTF8: bytes that are not UTF-8 in any text of a part
// or of the flow come out as U+FFFD in every format, and the flow given
// to the assembler is left as it was.
func TestEveryFormatIsUTF8(t *testing.T) {
	bad := "\xff\xfe\xc3"
	f := goldenFlow()
	f.ID += bad
	f.Mode += bad
	for i := range f.Parts {
		p := &f.Parts[i]
		for _, s := range partTexts(p) {
			*s += bad
		}
		p.Source.Tags = append(p.Source.Tags, "t"+bad)
	}
	before := f.Parts[2].Body
	c, err := tokens.ForEncoding(tokens.Estimate)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAssembler(c, nil)
	for round := 0; round < 2; round++ { // the second round reads the memo
		for _, format := range Formats {
			res := a.Assemble(f, format)
			if !utf8.ValidString(res.Text) || !strings.Contains(res.Text, "\uFFFD") {
				t.Errorf("%s: valid %v\n%s", format, utf8.ValidString(res.Text), res.Text)
			}
		}
		if plan := NewPlan(f, a.Assemble(f, MDCtx), 1000).JSON(); !utf8.Valid(plan) {
			t.Errorf("ctxplan.json is not UTF-8")
		}
	}
	if f.Parts[2].Body != before {
		t.Errorf("the caller's flow was changed")
	}
}
