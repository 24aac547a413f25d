package secrets

import (
	"strings"
	"testing"
)

// leadEdges are texts at the corners of a lead: names folded from
// non-ASCII runes, a name at the very start and the very end, a match
// that ends the text ($), and names in capitals.
var leadEdges = []string{
	"\u212aey = \"Zq8xW3rT9vLm2NpQ7sKd4Fh\"\n",
	"\u017fecret = \"Zq8xW3rT9vLm2NpQ7sKd4Fh\"\n",
	"API_KEY=Zq8xW3rT9vLm2NpQ7sKd4Fh",
	"token: Zq8xW3rT9vLm2NpQ7sKd4Fh",
	"x.Token, y := Zq8xW3rT9vLm2NpQ7sKd4Fh;",
	"password",
	"LOB_KEY = \"test_0123456789abcdef0123456789abcdef012\"\n",
}

// TestLeadNeverRulesOutAMatch runs every rule that has a lead over the
// corpus of TestMatchIsGitleaksDetect (and pieces of a few lines of each
// text, as Scan's windows are): wherever the rule's expression matches,
// its lead lets the text through. It also checks that the leads are there
// to test: the generic rule has one, and they rule out most texts.
func TestLeadNeverRulesOutAMatch(t *testing.T) {
	var led []*rule
	for _, r := range rules().rules {
		if r.compiled().lead != nil {
			led = append(led, r)
		}
	}
	if len(led) < 50 || !hasRule(led, "generic-api-key") {
		t.Fatalf("%d rules with a lead, generic-api-key among them: %v", len(led), hasRule(led, "generic-api-key"))
	}
	// Every rule's whole expression runs over every text the lead rules
	// out: this module's sources are cut short.
	c := testCorpus(t, 256<<10)
	texts := append([]string{}, leadEdges...)
	for _, text := range c.texts {
		texts = append(texts, text)
		lines := strings.SplitAfter(text, "\n")
		for j := 0; j < len(lines) && len(lines) > 4; j += 3 {
			texts = append(texts, strings.Join(lines[j:min(j+4, len(lines))], ""))
		}
	}
	ruledOut := 0
	for _, text := range texts {
		for _, r := range led {
			if r.lead.may(text) {
				continue
			}
			ruledOut++
			if r.bare.regex.MatchString(text) {
				t.Errorf("%s matches %.200q, its lead rules it out", r.id, text)
			}
		}
	}
	t.Logf("%d texts × %d rules: %d ruled out by the lead", len(texts), len(led), ruledOut)
	if ruledOut < len(texts)*len(led)/2 {
		t.Errorf("%d ruled out: the leads do little", ruledOut)
	}
}

func hasRule(rs []*rule, id string) bool {
	for _, r := range rs {
		if r.id == id {
			return true
		}
	}
	return false
}

// FuzzLead: wherever a rule with a lead matches a text, its lead lets the
// text through.
func FuzzLead(f *testing.F) {
	for _, s := range leadEdges {
		f.Add(s)
	}
	f.Add("const apiKey = \"sk_live_0123456789abcdefghij\" // auth")
	f.Fuzz(func(t *testing.T, text string) {
		for _, r := range rules().rules {
			if r.compiled().lead != nil && r.bare.regex.MatchString(text) && !r.lead.may(text) {
				t.Errorf("%s matches %q, its lead rules it out", r.id, text)
			}
		}
	})
}
