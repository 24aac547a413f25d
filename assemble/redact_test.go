package assemble

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble/tokens"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// secretFlow is the golden flow with one more evidence part, a Go file with
// four credentials taken from line 20 of its source, and tool output and a
// conversation turn that quote one.
func secretFlow() *Flow {
	f := goldenFlow()
	code := secrettest.GoFile()
	p := Part{Rank: "120", Kind: "main_go", Role: Evidence, Status: Active, Heading: "cmd/main.go",
		File: "ctx/evidence/120_main_go.evidence.md", CID: "sha256:main", Bytes: len(code),
		Code: code, Body: "```go\n" + code + "```\n",
		Source: Source{URI: "file://cmd/main.go", Path: "cmd/main.go", Span: "lines=20:35", StartLine: 20, EndLine: 35, Language: "go"}}
	f.Parts = append(f.Parts[:4], append([]Part{p}, f.Parts[4:]...)...)
	f.Pack.Terminal = "auth failed for " + secrettest.GitHub
	f.Pack.History = []Message{{Role: "user", Content: "why is " + secrettest.AWSKey + " rejected?"}}
	return f
}

// TestEveryFormatRedacts assembles the flow in each format: no secret is
// left, each is replaced by its marker, and the redactions name the part,
// rule and source line; allowed, the secrets go as they are and are still
// listed.
func TestEveryFormatRedacts(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAssembler(c, nil)
	want := []Redaction{
		{Part: "120_main_go", Rule: "aws-access-token", Line: 23, Source: "cmd/main.go"},
		{Part: "120_main_go", Rule: "github-pat", Line: 26, Source: "cmd/main.go"},
		{Part: "120_main_go", Rule: "slack-bot-token", Line: 29, Source: "cmd/main.go"},
		{Part: "120_main_go", Rule: "private-key", Line: 31, Source: "cmd/main.go"},
	}
	for _, allow := range []bool{false, true} {
		f := secretFlow()
		f.AllowSecrets = allow
		for _, format := range []Format{MDCtx, Aptix, Responses, Pack} {
			res := a.Assemble(f, format)
			text := res.Text // for responses, JSON: the secrets have nothing it escapes
			for i, s := range secrettest.All() {
				first := strings.SplitN(s, "\n", 2)[0] // the PEM's BEGIN line
				if has := strings.Contains(text, first); has != allow {
					t.Errorf("%s (allow %v): secret %q present = %v", format, allow, first, has)
				}
				if marker := "[REDACTED:" + secrettest.Rules[i] + "]"; strings.Contains(text, marker) == allow {
					t.Errorf("%s (allow %v): marker %s present = %v", format, allow, marker, !allow)
				}
			}
			if got, _ := json.Marshal(res.Redactions); string(got) != mustJSON(want) {
				t.Errorf("%s (allow %v): redactions\n got %s\nwant %s", format, allow, got, mustJSON(want))
			}
			if format == Pack && !allow && (strings.Contains(text, secrettest.GitHub) || strings.Contains(text, secrettest.AWSKey)) {
				t.Errorf("pack carries a secret from tool output or history")
			}
		}
		plan := NewPlan(f, a.Assemble(f, MDCtx), 1000)
		mode := map[bool]string{false: "redacted", true: "allowed"}[allow]
		if plan.Secrets.Mode != mode || len(plan.Secrets.Findings) != 4 {
			t.Errorf("plan records %+v, want mode %s and 4 findings", plan.Secrets, mode)
		}
	}
	// A skipped part's secrets are not reported: it is not sent.
	f := secretFlow()
	f.Parts[4].Status = Skipped
	if res := a.Assemble(f, MDCtx); len(res.Redactions) != 0 {
		t.Errorf("a skipped part reported %v", res.Redactions)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
