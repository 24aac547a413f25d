package assemble

import (
	"strconv"
	"testing"

	"github.com/dossierhq/dossier/assemble/tokens"
)

// goldenFlow is seed 003's example flow: a policy, a request, two active
// evidence parts, a skipped one, a live link, one outlined by fit.
func goldenFlow() *Flow {
	ev := func(rank, kind, path string, start, end int, lang, code string) Part {
		p := Part{Rank: rank, Kind: kind, Role: Evidence, Status: Active, Heading: path,
			File: "ctx/evidence/" + rank + "_" + kind + ".evidence.md", CID: "sha256:" + kind, Bytes: len(code) + 120,
			Code: code, Body: Fence(code) + lang + "\n" + code + Fence(code),
			Source: Source{URI: "file://" + path, Path: path, CID: "sha256:src-" + kind, Span: "lines=" + strconv.Itoa(start) + ":" + strconv.Itoa(end), StartLine: start, EndLine: end, Language: lang}}
		return p
	}
	f := &Flow{ID: "fix-parser-20250116T123456", Mode: "fix", Budget: 10000}
	f.Parts = []Part{
		{Rank: "000", Kind: "policy", Role: System, File: "ctx/000_policy.system.md", CID: "sha256:policy", Bytes: 40, Status: Active, Body: "Answer with a unified diff.\nKeep the API stable.\n"},
		{Rank: "010", Kind: "request", Role: User, File: "ctx/010_request.user.md", CID: "sha256:request", Bytes: 33, Status: Active, Body: "Fix the flow parser's error path.\n"},
		ev("100", "flow_sh", "core/flow.sh", 100, 103, "bash", "parse_flow() {\n  local f=$1\n  [[ -f $f ]] || return 1\n}\n"),
		ev("110", "assembler_sh", "core/assembler.sh", 10, 12, "bash", "assemble_ctx() {\n  find \"$ctx\" -name '*.md'\n}\n"),
		ev("200", "test_flow_sh", "tests/flow_test.sh", 1, 2, "bash", "test_parse() { parse_flow x; }\n"),
		ev("300", "readme", "README.md", 1, 5, "markdown", "# Flow\n\nUse it like this:\n```sh\nflow run\n```\n"),
		ev("400", "state", "core/state.go", 1, 9, "go", "package core\n\ntype State struct {\n\tName string\n}\n\nfunc (s *State) Save() error {\n\treturn nil\n}\n"),
	}
	f.Parts[4].Status = Skipped
	f.Parts[5].Link = true
	f.Parts[5].Source.Span = "all"
	f.Parts[6].Detail = Outline
	f.Parts[6].OutlineText = "package core\n...\ntype State struct {\n...\nfunc (s *State) Save() error {\n...\n"
	f.Parts[6].Source.Tags = []string{"state", "io"}
	return f
}

// TestRenderGolden pins every format's bytes for seed 003's example flow.
func TestRenderGolden(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	a := NewAssembler(c, nil)
	f := goldenFlow()
	for _, format := range []Format{MDCtx, Aptix, Responses, Pack} {
		res := a.Assemble(f, format)
		golden(t, string(format), []byte(res.Text))
		if res.Tokens != c.Count(res.Text) && format != Responses {
			t.Errorf("%s: %d tokens, the text has %d", format, res.Tokens, c.Count(res.Text))
		}
	}
	res := a.Assemble(f, MDCtx)
	golden(t, "ctxplan.json", NewPlan(f, res, f.Budget).JSON())
	// Frame is derived as the remainder, so check it against what it
	// stands for: the header and the two role headings, each counted alone.
	if want := c.Count(MDCtxHeader(f.ID)) + c.Count(roleHeading(System)) + c.Count(roleHeading(User)); res.Frame != want {
		t.Errorf("frame %d tokens, the header and headings count %d (roles %v, total %d)", res.Frame, want, res.ByRole, res.Tokens)
	}
}
