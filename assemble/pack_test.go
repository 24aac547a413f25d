package assemble

import (
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// quarter is a deterministic stand-in for a tokenizer: four bytes a token.
func quarter(s string) int { return (len(s) + 3) / 4 }

// packFlow is the fixed flow of the golden and overflow tests: an
// ordinary policy, the three ACE kinds, a request with acceptance
// criteria and constraints, four evidence parts (one skipped, one at
// outline detail, one hand-written), diagnostics, terminal output and six
// history messages.
func packFlow() *Flow {
	return &Flow{
		ID:   "login-20260101T000000",
		Mode: "fix",
		Parts: []Part{
			{Rank: "000", Kind: "policy", Role: System, Status: Active,
				Body: "Answer with a unified diff.\n\nConstraints:\n- Do not change the public API\n- Keep Go 1.22 compatibility\n"},
			{Rank: "010", Kind: "constitution", Role: System, Status: Active,
				Body: "# Constitution\n\n- Always use parameterized queries for SQL\n- Validate all user input\n  before database operations\n"},
			{Rank: "020", Kind: "gotchas", Role: System, Status: Active,
				Body: "- Database connection requires DB_URL\n- Tests must run with `-tags integration`\n"},
			{Rank: "030", Kind: "runbook", Role: System, Status: Active,
				Body: "# Runbook\n\n- test: go test ./...\n- `lint`: `go vet ./...`\n- build: make build\nRun lint before pushing.\n"},
			{Rank: "050", Kind: "request", Role: User, Status: Active,
				Body: "Fix the SQL injection in login.go.\n\nAcceptance criteria:\n- Tests pass\n- No string-built queries\n\n## Constraints\n\n1. Keep the `Login` signature\n2. No new dependencies\n\nThe bug shows up with names like `O'Brien`.\n"},
			{Rank: "100", Kind: "login_go", Role: Evidence, Status: Active,
				Source: Source{Path: "auth/login.go", Span: "lines=23:27", StartLine: 23, EndLine: 27,
					Language: "go", Symbol: "Login", Tags: []string{"auth", "sql"}},
				Code: "func Login(db *sql.DB, name string) error {\n\tq := \"SELECT * FROM users WHERE name = '\" + name + \"'\"\n\t_, err := db.Exec(q)\n\treturn err\n}\n"},
			{Rank: "200", Kind: "validate_go", Role: Evidence, Status: Active, Detail: Outline,
				Source:      Source{Path: "auth/validate.go", Span: "lines=1:40", StartLine: 1, EndLine: 40, Language: "go"},
				Code:        "package auth\n\n// ValidateName ...\nfunc ValidateName(s string) bool {\n\treturn s != \"\"\n}\n",
				OutlineText: "func ValidateName(s string) bool\nfunc ValidateEmail(s string) bool\n"},
			{Rank: "300", Kind: "db_go", Role: Evidence, Status: Skipped,
				Source: Source{Path: "db/db.go", StartLine: 1, EndLine: 9}, Code: "package db\n"},
			{Rank: "400", Kind: "notes", Role: Evidence, Status: Active, Heading: "notes",
				Body: "\nThe DB layer is in `db/`; queries go through `db.Exec`.\n\n"},
		},
		Pack: PackInput{
			Branch:   "fix/login-sql",
			Modified: []string{"auth/login.go", "auth/login_test.go"},
			Diagnostics: []Diagnostic{
				{File: "auth/login.go", Line: 24, Message: "string concatenation in SQL query"},
				{File: "auth/login_test.go", Message: "FAIL TestLogin"},
			},
			Terminal: "$ go test ./auth/\n--- FAIL: TestLogin (0.00s)\n    login_test.go:31: got 2 rows, want 1   \nFAIL\nFAIL\tauth\t0.012s\n\n",
			History: []Message{
				{Role: "user", Content: "Why does login return two rows?"},
				{Role: "assistant", Content: "The query is built by concatenation, so a quote in the name changes it."},
				{Role: "user", Content: "Show me where."},
				{Role: "assistant", Content: "auth/login.go, line 24:\n\n\tq := \"SELECT ...\" + name\n"},
				{Role: "user", Content: "Fix it."},
				{Role: "assistant", Content: "I'll switch to a parameterized query."},
			},
		},
	}
}

// packDecoded is the pack read back.
type packDecoded struct {
	Task struct {
		Goal               string   `yaml:"goal"`
		SlashCommand       string   `yaml:"slash_command"`
		AcceptanceCriteria []string `yaml:"acceptance_criteria"`
		Constraints        []string `yaml:"constraints"`
	} `yaml:"task"`
	Workspace struct {
		CurrentFile    string       `yaml:"current_file"`
		Selection      string       `yaml:"selection"`
		Diagnostics    []Diagnostic `yaml:"diagnostics"`
		TerminalOutput string       `yaml:"terminal_output"`
		GitStatus      struct {
			Branch        string   `yaml:"branch"`
			ModifiedFiles []string `yaml:"modified_files"`
		} `yaml:"git_status"`
	} `yaml:"workspace"`
	ACE struct {
		Constitution []string          `yaml:"constitution"`
		Gotchas      []string          `yaml:"gotchas"`
		Runbook      map[string]string `yaml:"runbook"`
		RunbookNotes []string          `yaml:"runbook_notes"`
		Policies     []string          `yaml:"policies"`
	} `yaml:"ace"`
	Evidence []struct {
		File    string   `yaml:"file"`
		Lines   string   `yaml:"lines"`
		Symbol  string   `yaml:"symbol"`
		ID      string   `yaml:"id"`
		Tags    []string `yaml:"tags"`
		Detail  string   `yaml:"detail"`
		Content string   `yaml:"content"`
	} `yaml:"evidence"`
	History []Message `yaml:"history"`
	Budget  struct {
		Limit      int            `yaml:"limit"`
		Used       int            `yaml:"used"`
		Allocation map[string]int `yaml:"allocation"`
		Sections   map[string]int `yaml:"sections"`
		Dropped    struct {
			History       int      `yaml:"history"`
			TerminalLines int      `yaml:"terminal_lines"`
			Evidence      []string `yaml:"evidence"`
		} `yaml:"dropped"`
		OverBudget bool `yaml:"over_budget"`
	} `yaml:"budget"`
}

// decodePack parses a pack and checks that its top-level keys are seed
// 004's sections in order, then the budget report.
func decodePack(t testing.TB, out string) packDecoded {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("pack is not YAML: %v\n%s", err, out)
	}
	var keys []string
	if len(doc.Content) == 1 {
		m := doc.Content[0]
		for i := 0; i+1 < len(m.Content); i += 2 {
			keys = append(keys, m.Content[i].Value)
		}
	}
	if want := []string{"task", "workspace", "ace", "evidence", "history", "budget"}; !slices.Equal(keys, want) {
		t.Fatalf("sections %v, want %v", keys, want)
	}
	var p packDecoded
	if err := yaml.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("decode pack: %v", err)
	}
	return p
}

func TestRenderPack(t *testing.T) {
	full := RenderPack(packFlow(), quarter)
	golden(t, "fits", []byte(full))

	p := decodePack(t, full)
	if p.Budget.Limit != defaultPackBudget || p.Budget.Used != quarter(full) {
		t.Errorf("budget limit %d used %d, want %d and %d", p.Budget.Limit, p.Budget.Used, defaultPackBudget, quarter(full))
	}
	if got := p.Task.Goal; got != "Fix the SQL injection in login.go.\n\nThe bug shows up with names like `O'Brien`." {
		t.Errorf("goal %q", got)
	}
	wantList := func(name string, got, want []string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	wantList("acceptance", p.Task.AcceptanceCriteria, []string{"Tests pass", "No string-built queries"})
	wantList("constraints", p.Task.Constraints, []string{"Do not change the public API", "Keep Go 1.22 compatibility", "Keep the `Login` signature", "No new dependencies"})
	wantList("constitution", p.ACE.Constitution, []string{"Always use parameterized queries for SQL", "Validate all user input before database operations"})
	wantList("runbook notes", p.ACE.RunbookNotes, []string{"Run lint before pushing."})
	wantList("policies", p.ACE.Policies, []string{"Answer with a unified diff."})
	if p.ACE.Runbook["lint"] != "go vet ./..." || len(p.ACE.Runbook) != 3 {
		t.Errorf("runbook %q", p.ACE.Runbook)
	}
	var ids []string
	for _, e := range p.Evidence {
		ids = append(ids, e.ID)
	}
	wantList("evidence", ids, []string{"100_login_go", "200_validate_go", "400_notes"})
	if e := p.Evidence[1]; e.Detail != "outline" || e.Content != packFlow().Parts[6].OutlineText {
		t.Errorf("outline entry %+v", e)
	}
	if p.Workspace.CurrentFile != "auth/login.go" || p.Workspace.Selection != "lines 23-27" {
		t.Errorf("current file %q selection %q", p.Workspace.CurrentFile, p.Workspace.Selection)
	}

	// A budget that keeps the task and the current file but not all the
	// rest shows the report of what went.
	f := packFlow()
	f.Budget = quarter(full) * 3 / 4
	golden(t, "tight", []byte(RenderPack(f, quarter)))
}

// TestRenderPackOverflow lowers the budget one token at a time and checks
// seed 004's overflow strategy at every step.
func TestRenderPackOverflow(t *testing.T) {
	full := decodePack(t, RenderPack(packFlow(), quarter))
	var lastOver bool
	for budget := full.Budget.Used + 5; budget > 0; budget-- {
		f := packFlow()
		f.Budget = budget
		out := RenderPack(f, quarter)
		p := decodePack(t, out)
		d := p.Budget.Dropped
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("budget %d: "+format+"\n%s", append([]any{budget}, append(args, out)...)...)
		}

		// Never dropped.
		if p.Task.Goal != full.Task.Goal || !slices.Equal(p.Task.Constraints, full.Task.Constraints) {
			fail("task changed")
		}
		if !slices.Equal(p.Workspace.Diagnostics, full.Workspace.Diagnostics) {
			fail("diagnostics changed")
		}
		if !slices.Equal(p.ACE.Constitution, full.ACE.Constitution) {
			fail("constitution changed")
		}
		if p.Workspace.CurrentFile != "auth/login.go" || len(p.Evidence) == 0 || p.Evidence[0].ID != "100_login_go" ||
			p.Evidence[0].Content != full.Evidence[0].Content {
			fail("current file's evidence dropped")
		}

		// History goes oldest first, and before anything else.
		if d.History+len(p.History) != len(full.History) || !slices.Equal(p.History, full.History[d.History:]) {
			fail("history is not the newest %d messages", len(full.History)-d.History)
		}
		if (d.TerminalLines > 0 || len(d.Evidence) > 0) && len(p.History) > 0 {
			fail("dropped terminal lines or evidence while history remains")
		}
		// Evidence goes from the highest rank number.
		if want := []string{"400_notes", "200_validate_go"}[:len(d.Evidence)]; !slices.Equal(d.Evidence, want) {
			fail("dropped evidence %v, want %v", d.Evidence, want)
		}
		if len(p.Evidence)+len(d.Evidence) != len(full.Evidence) {
			fail("evidence neither kept nor reported dropped")
		}
		// Terminal output keeps its last lines.
		if !strings.HasSuffix(full.Workspace.TerminalOutput, p.Workspace.TerminalOutput) {
			fail("terminal output is not a tail")
		}

		if p.Budget.Used != quarter(out) {
			fail("report says %d tokens, pack has %d", p.Budget.Used, quarter(out))
		}
		if !p.Budget.OverBudget && p.Budget.Used > budget {
			fail("%d tokens over a budget of %d without over_budget", p.Budget.Used, budget)
		}
		if p.Budget.OverBudget {
			if p.Budget.Used <= budget || len(p.History) > 0 || len(p.Evidence) > 1 || p.Workspace.TerminalOutput != "" {
				fail("over_budget while something could still be dropped")
			}
			lastOver = true
		} else if lastOver {
			fail("fits although a larger budget did not")
		}
	}
	if !lastOver {
		t.Error("no budget was too small for what is never dropped")
	}
}

func TestRenderPackAllocation(t *testing.T) {
	for _, budget := range []int{12000, 6000, 1, 12345, 1 << 62} {
		a := packAllocate(budget)
		sum := 0
		for _, n := range a {
			sum += n
			if n < 0 {
				t.Errorf("budget %d: negative share in %v", budget, a)
			}
		}
		if sum != budget {
			t.Errorf("budget %d: shares %v add up to %d", budget, a, sum)
		}
	}
	if a := packAllocate(12000); a != [packSections]int{500, 1000, 1000, 8000, 1500} {
		t.Errorf("seed 004's allocation: %v", a)
	}
}

// packTricky is text that YAML would misread if it were written naively.
var packTricky = []string{
	"a: b # not a comment\n--- \n...\n- item\n? key\n",
	"\tfunc tabbed() {\n\t\treturn\n\t}\n",
	"\tx\ny",
	"  leading spaces\n    more\n",
	"\n\nleading blank lines\n",
	"\n",
	"\n\n",
	"trailing blank lines\n\n\n",
	"no final newline",
	"single: line",
	"trailing spaces   \nand tabs\t\n",
	"x\n \n",
	"   \n  \n",
	" ",
	"crlf\r\nline\r\n",
	"unicode: ✕ é 中文 😀\n",
	"nul \x00 and bell \a\n",
	"line sep \u2028 para \u2029 nel \u0085\n",
	"bom \ufeff\n",
	"invalid utf8 \xff\xfe\n",
	"#!/bin/sh\necho hi\n",
	"```go\nfenced\n```\n",
	"key: |\n  nested literal\n",
	"%YAML 1.2\n---\nnull\n",
	"'quoted' \"double\" \\back\\slash\n",
	"true",
	"0123",
	"~",
	strings.Repeat("long line ", 200) + "\n",
}

// packRoundTrip renders s as an evidence part's code, a history message
// and a diagnostic message, reads the pack back, and returns what came
// back of each.
func packRoundTrip(t testing.TB, s string) (code, history, diag string) {
	t.Helper()
	f := &Flow{
		Parts: []Part{{Rank: "100", Kind: "x", Role: Evidence, Status: Active,
			Source: Source{Path: "x.go"}, Code: s}},
		Pack: PackInput{
			History:     []Message{{Role: "user", Content: s}},
			Diagnostics: []Diagnostic{{File: "x.go", Line: 1, Message: s}},
		},
	}
	p := decodePack(t, RenderPack(f, quarter))
	if len(p.Evidence) != 1 || len(p.History) != 1 || len(p.Workspace.Diagnostics) != 1 {
		t.Fatalf("%q: lost an entry", s)
	}
	return p.Evidence[0].Content, p.History[0].Content, p.Workspace.Diagnostics[0].Message
}

func TestRenderPackRoundTrip(t *testing.T) {
	for _, s := range packTricky {
		// Invalid UTF-8 cannot be YAML; it becomes U+FFFD.
		want := strings.ToValidUTF8(s, "\uFFFD")
		code, history, diag := packRoundTrip(t, s)
		if code != want || history != want || diag != want {
			t.Errorf("%q came back as %q, %q, %q", s, code, history, diag)
		}
	}
	// Code reads as code: a literal block, tabs as tabs.
	out := RenderPack(&Flow{Parts: []Part{{Rank: "100", Kind: "x", Role: Evidence, Status: Active,
		Source: Source{Path: "x.go"}, Code: packTricky[1]}}}, quarter)
	if !strings.Contains(out, "content: |2\n      \tfunc tabbed() {\n") {
		t.Errorf("tab-indented code is not a literal block:\n%s", out)
	}
}

func FuzzRenderPackRoundTrip(f *testing.F) {
	for _, s := range packTricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" {
			return
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		code, history, diag := packRoundTrip(t, s)
		if code != want || history != want || diag != want {
			t.Errorf("%q came back as %q, %q, %q", s, code, history, diag)
		}
	})
}

// FuzzRenderPackParts feeds arbitrary text to the markdown readers (user
// and ACE parts) and the terminal output: the pack must stay YAML.
func FuzzRenderPackParts(f *testing.F) {
	fl := packFlow()
	for _, p := range fl.Parts[:5] {
		f.Add(p.Body, uint8(0))
	}
	f.Add(fl.Pack.Terminal, uint8(3))
	f.Add("Constraints:\n- a\n  b\n\n```\n- c\n```\nAcceptance: x\n", uint8(1))
	f.Fuzz(func(t *testing.T, s string, where uint8) {
		fl := packFlow()
		switch where % 4 {
		case 0:
			fl.Parts[4].Body = s
		case 1:
			fl.Parts[1].Body = s
		case 2:
			fl.Parts[3].Body = s
		case 3:
			fl.Pack.Terminal = s
		}
		fl.Budget = int(where) * 8
		decodePack(t, RenderPack(fl, quarter))
	})
}

func TestRenderPackEdges(t *testing.T) {
	// Nothing at all still renders every section.
	for _, f := range []*Flow{nil, {}} {
		p := decodePack(t, RenderPack(f, nil))
		if p.Budget.Limit != defaultPackBudget || p.Budget.OverBudget {
			t.Errorf("empty flow: %+v", p.Budget)
		}
	}
	// A part without provenance is not the current file; path-only
	// evidence carries no content; a negative count is taken as zero.
	f := &Flow{Parts: []Part{
		{Rank: "010", Kind: "notes", Role: Evidence, Status: Active, Heading: "notes", Body: "hand-written"},
		{Rank: "100", Kind: "big", Role: Evidence, Status: Active, Detail: PathOnly,
			Source: Source{Path: "big.go", StartLine: 1, EndLine: 900}, Code: "package big\n"},
	}}
	out := RenderPack(f, func(string) int { return -1 })
	p := decodePack(t, out)
	if p.Workspace.CurrentFile != "big.go" || p.Evidence[1].Detail != "path" || p.Evidence[1].Content != "" {
		t.Errorf("path-only evidence:\n%s", out)
	}
	if p.Evidence[0].Content != "hand-written\n" || p.Evidence[0].File != "notes" {
		t.Errorf("hand-written evidence:\n%s", out)
	}
	if RenderPack(packFlow(), quarter) != RenderPack(packFlow(), quarter) {
		t.Error("two renders of one flow differ")
	}
}

func TestSplitCriteria(t *testing.T) {
	tests := []struct {
		in, rest  string
		acc, cons []string
	}{
		{in: "Do it.\n**Acceptance criteria:**\n* one\n* two\n  continued\nAfter.",
			rest: "Do it.\nAfter.", acc: []string{"one", "two continued"}},
		{in: "acceptance_criteria:\n  - yaml style\nconstraints: inline item\n- next",
			rest: "", acc: []string{"yaml style"}, cons: []string{"inline item", "next"}},
		// A heading without bullets stays; so does a sentence.
		{in: "## Constraints\nNone really.\nConstraints are what we discussed at length last week: none.",
			rest: "## Constraints\nNone really.\nConstraints are what we discussed at length last week: none."},
		// Fenced code is not read.
		{in: "```\nConstraints:\n- in code\n```", rest: "```\nConstraints:\n- in code\n```"},
		{in: "#constraints\n- tag line, not a heading", rest: "#constraints\n- tag line, not a heading"},
	}
	for _, tt := range tests {
		var c packCriteria
		rest := splitCriteria(tt.in, &c)
		if rest != tt.rest || !slices.Equal(c.acceptance, tt.acc) || !slices.Equal(c.constraints, tt.cons) {
			t.Errorf("splitCriteria(%q) = %q, %q, %q; want %q, %q, %q", tt.in, rest, c.acceptance, c.constraints, tt.rest, tt.acc, tt.cons)
		}
	}
}

func TestMDItemsAndRunbook(t *testing.T) {
	items := mdItems("# Gotchas\n\n- one\n  more\nplain line\nsame paragraph\n\n```sh\nmake x\n```\n#tag\n")
	want := []string{"one more", "plain line same paragraph", "```sh\nmake x\n```", "#tag"}
	if !slices.Equal(items, want) {
		t.Errorf("mdItems = %q, want %q", items, want)
	}
	for in, want := range map[string][2]string{
		"test: go test ./...":       {"test", "go test ./..."},
		"`lint`: `go vet ./...`":    {"lint", "go vet ./..."},
		"**build:** make":           {"build", "make"},
		"see https://example.com":   {},
		"docs: https://example.com": {"docs", "https://example.com"},
		"this is a very long sentence that keeps going on and on: x": {},
		"no colon": {},
	} {
		name, cmd, ok := runbookEntry(in)
		if ok != (want[0] != "") || name != want[0] || cmd != want[1] {
			t.Errorf("runbookEntry(%q) = %q, %q, %v", in, name, cmd, ok)
		}
	}
}
