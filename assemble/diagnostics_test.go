package assemble

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dossierhq/dossier/assemble/tokens"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// sampleReport is what from-output writes for a PHP failure in a
// container, with the secret a log line may leak.
var sampleReport = Report{
	Source: "php output",
	Failures: []Failure{
		{Message: "Error: Call to undefined method App\\Models\\User::fullName()", Locations: []Location{
			{File: "app/Http/Controllers/UserController.php", Line: 50, Site: true, Part: "100_usercontroller_php_show"},
			{File: "routes/web.php", Line: 21, Func: "Illuminate\\Routing\\ControllerDispatcher->dispatch", Part: "200_web_php_10_30"},
		}},
		{Message: "Warning: Undefined array key \"tax\""},
	},
	Mapped: []Mapping{{From: "/var/www/app/app/Http/Controllers/UserController.php", To: "app/Http/Controllers/UserController.php"}},
	Left:   "2 in dependencies or the toolchain",
	Output: "PHP Fatal error:  Uncaught Error: Call to undefined method App\\Models\\User::fullName()\n  thrown in /var/www/app/app/Http/Controllers/UserController.php on line 50\nGITHUB_TOKEN=" + secrettest.GitHub,
}

func TestReportRoundTrip(t *testing.T) {
	md := sampleReport.Markdown()
	if got := ParseReport(md); !reflect.DeepEqual(got, sampleReport) {
		t.Errorf("round trip:\n%s\ngot  %+v\nwant %+v", md, got, sampleReport)
	}
	if !strings.Contains(md, "- mapped /var/www/app/app/Http/Controllers/UserController.php -> app/Http/Controllers/UserController.php") {
		t.Errorf("the mapping is not noted:\n%s", md)
	}
	// Backticks in a path and in the output do not break the part.
	odd := Report{Failures: []Failure{{Message: "x", Locations: []Location{{File: "a`b.go", Line: 3}}}}, Output: "```\nfenced\n```"}
	if got := ParseReport(odd.Markdown()); !reflect.DeepEqual(got, odd) {
		t.Errorf("odd round trip:\n%s\ngot %+v", odd.Markdown(), got)
	}
}

// diagnosticsFlow is a flow with a request, a diagnostics part and the
// failing site's evidence.
func diagnosticsFlow() *Flow {
	req := Part{Rank: "010", Kind: "request", Role: User, Status: Active, File: "ctx/010_request.user.md", CID: "sha256:1", Body: "Fix the profile page.\n"}
	diag := Part{Rank: "020", Kind: DiagnosticsKind, Role: User, Status: Active, File: "ctx/020_diagnostics.user.md", CID: "sha256:2", Body: sampleReport.Markdown()}
	code := "public function show(Request $r, string $id)\n{\n    return $this->users->find($id)->fullName();\n}\n"
	ev := Part{Rank: "100", Kind: "usercontroller_php_show", Role: Evidence, Status: Active, File: "ctx/evidence/100_usercontroller_php_show.evidence.md", CID: "sha256:3",
		Heading: "app/Http/Controllers/UserController.php", Code: code, Body: Fenced(code, "php"),
		Source: Source{URI: "file://app/Http/Controllers/UserController.php", Path: "app/Http/Controllers/UserController.php", Span: "lines=48:51", StartLine: 48, EndLine: 51, Language: "php"}}
	return &Flow{ID: "diag-20260101T000000", Mode: "fix", Parts: []Part{req, diag, ev}}
}

// TestDiagnosticsInEveryFormat: the error text and its locations reach
// every format: prompt.mdctx as a user part, Aptix and /responses as the
// first [CONTEXT] chunk (not again in the instruction), the pack as its
// workspace diagnostics and terminal output; secrets in the output are
// redacted in all of them, and the token accounting adds up.
func TestDiagnosticsInEveryFormat(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	msg := "Call to undefined method App\\Models\\User::fullName()"
	for _, format := range Formats {
		a := NewAssembler(c, nil)
		res := a.Assemble(diagnosticsFlow(), format)
		text := res.Text
		if format == Responses {
			var doc struct {
				Input []struct {
					Content []struct{ Text string }
				}
			}
			if err := json.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatalf("responses: %v", err)
			}
			instr, ctx := doc.Input[0].Content[0].Text, doc.Input[0].Content[1].Text
			if strings.Contains(instr, msg) || !strings.Contains(instr, "Fix the profile page.") {
				t.Errorf("responses instruction:\n%s", instr)
			}
			text = ctx
		}
		if !strings.Contains(text, msg) {
			t.Errorf("%s: the error text is missing:\n%s", format, text)
		}
		if strings.Contains(text, secrettest.GitHub) || !strings.Contains(text, "[REDACTED:github-pat]") {
			t.Errorf("%s: a secret of the output reached the prompt:\n%s", format, text)
		}
		switch format {
		case MDCtx:
			if !strings.Contains(text, "# User Request\n\nFix the profile page.\n\n## Diagnostics (php output)\n") ||
				!strings.Contains(text, "- mapped /var/www/app/app/Http/Controllers/UserController.php -> app/Http/Controllers/UserController.php") {
				t.Errorf("mdctx:\n%s", text)
			}
		case Aptix, Responses:
			if !strings.Contains(text, "=== CHUNK 1 ===\nId: 020_diagnostics\nPath: ctx/020_diagnostics.user.md\n") ||
				!strings.Contains(text, "=== CHUNK 2 ===\nId: app/Http/Controllers/UserController.php::48,51\n") {
				t.Errorf("%s: the diagnostics are not the first chunk:\n%s", format, text)
			}
		case Pack:
			var doc struct {
				Workspace struct {
					CurrentFile string `yaml:"current_file"`
					Diagnostics []Diagnostic
					Terminal    string `yaml:"terminal_output"`
				}
				Task struct{ Goal string }
			}
			if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatalf("pack: %v\n%s", err, text)
			}
			want := []Diagnostic{
				{File: "app/Http/Controllers/UserController.php", Line: 50, Message: sampleReport.Failures[0].Message},
				{Message: sampleReport.Failures[1].Message},
			}
			if !reflect.DeepEqual(doc.Workspace.Diagnostics, want) || !strings.Contains(doc.Workspace.Terminal, "thrown in /var/www/app") ||
				strings.Contains(doc.Task.Goal, "Diagnostics") || doc.Workspace.CurrentFile != "app/Http/Controllers/UserController.php" {
				t.Errorf("pack workspace %+v goal %q\n%s", doc.Workspace, doc.Task.Goal, text)
			}
		}
		if format != Pack {
			sum := res.Frame
			for _, n := range res.ByRole {
				sum += n
			}
			if sum != res.Tokens || res.Tokens != c.Count(text) && format != Responses {
				t.Errorf("%s: tokens %d, by role and frame %d, counted %d", format, res.Tokens, sum, c.Count(text))
			}
			if res.PartTokens[1] == 0 {
				t.Errorf("%s: the diagnostics part costs nothing", format)
			}
		}
	}
}

// FuzzReport: any text reads as a report without a panic, and what it
// reads renders to a part that reads back the same.
func FuzzReport(f *testing.F) {
	f.Add(sampleReport.Markdown())
	f.Add("## Diagnostics (x)\n\n1. boom\n   - `a.go:3` in f — failing site, 100_a\n\nOutput (last 1 lines):\n```text\nx\n```\n")
	f.Add("1. \n   - ``a`b.go:1`` in  — \n- mapped a -> b\nLeft out: x\n")
	f.Fuzz(func(t *testing.T, md string) {
		r := ParseReport(md)
		again := ParseReport(r.Markdown())
		if !reflect.DeepEqual(normReport(again), normReport(r)) {
			t.Fatalf("not a fixed point:\n%q\nfirst  %+v\nsecond %+v", r.Markdown(), r, again)
		}
	})
}

// normReport maps a report to what Markdown preserves: one-line values,
// "(no message)" for an empty one.
func normReport(r Report) Report {
	r.Source = oneLine(r.Source)
	r.Left = oneLine(r.Left)
	r.Output = strings.Trim(r.Output, "\n")
	fs := make([]Failure, len(r.Failures))
	for i, f := range r.Failures {
		f.Message = oneLine(f.Message)
		if f.Message == "" {
			f.Message = "(no message)"
		}
		locs := make([]Location, len(f.Locations))
		for j, l := range f.Locations {
			l.Func = oneLine(l.Func)
			locs[j] = l
		}
		f.Locations = locs
		fs[i] = f
	}
	r.Failures = fs
	ms := make([]Mapping, len(r.Mapped))
	for i, m := range r.Mapped {
		ms[i] = Mapping{oneLine(m.From), oneLine(m.To)}
	}
	r.Mapped = ms
	return r
}
