package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/dossierhq/dossier/index/search"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// flowWorkspace is a small repository with an index and a current flow.
func flowWorkspace(t *testing.T) string {
	t.Helper()
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var sh strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&sh, "echo line %d\n", i)
	}
	write("core/flow.sh", sh.String())
	write("parser/parse.go", `package parser

import "errors"

// ErrSyntax is returned for input that does not parse.
var ErrSyntax = errors.New("syntax error")

// Parse reads one expression and handles errors by wrapping them.
func Parse(src string) (string, error) {
	if src == "" {
		return "", ErrSyntax
	}
	return normalize(src), nil
}

func normalize(s string) string {
	return s + "!"
}
`)
	write("parser/parse_test.go", `package parser

import "testing"

func TestParse(t *testing.T) {
	if _, err := Parse(""); err == nil {
		t.Fatal("want an error")
	}
}
`)
	write("render/render.go", `package render

// Render draws the tree with colours and widths.
func Render(tree string) string {
	return "<" + tree + ">"
}
`)
	if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	if out, errOut, code := runCLI(t, "flow", "new", "fix parser", "--root", root, "--request", "Fix the parser's error handling."); code != 0 {
		t.Fatalf("flow new: exit %d %s %s", code, out, errOut)
	}
	return root
}

// must runs the CLI and fails the test on a non-zero exit.
func must(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("dossier %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// flowDir is the current flow of root.
func flowDir(t *testing.T, root string) string {
	t.Helper()
	id, err := os.ReadFile(filepath.Join(root, ".dossier", "flows", "current"))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, ".dossier", "flows", strings.TrimSpace(string(id)))
}

// tree lists a flow's files (not build/) with their contents, to prove a
// failed command left the flow as it was.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if strings.HasPrefix(rel, "build") {
			return nil
		}
		if info.Mode()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			lines = append(lines, rel+" -> "+target)
			return nil
		}
		if !info.IsDir() {
			raw, _ := os.ReadFile(p)
			lines = append(lines, rel+"\n"+string(raw))
		}
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n---\n")
}

func TestEvidenceAddToggleRankRebaseRemove(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	out := must(t, "evidence", "add", "core/flow.sh::100,200#flow,manager", r)
	for _, want := range []string{"✓ Added evidence: 100_flow_sh_100_200.evidence.md", "Bytes:", "tokens, o200k_base", "Total context:", "Budget:"} {
		if !strings.Contains(out, want) {
			t.Errorf("add feedback lacks %q:\n%s", want, out)
		}
	}
	dir := flowDir(t, root)
	part, err := os.ReadFile(filepath.Join(dir, "ctx", "evidence", "100_flow_sh_100_200.evidence.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(part), "## Evidence: core/flow.sh\n<!-- source_uri=file://core/flow.sh; cid=sha256:") ||
		!strings.Contains(string(part), "; span=lines=100:200; tags=flow,manager; anchor=") ||
		!strings.Contains(string(part), "```bash\necho line 100\n") || !strings.Contains(string(part), "echo line 200\n```\n") ||
		strings.Contains(string(part), "echo line 201") {
		t.Errorf("part file:\n%s", part)
	}
	must(t, "evidence", "add", "parser/parse.go::@Parse", r)
	must(t, "evidence", "add", "@Render", "--band", "peripheral", r)
	must(t, "evidence", "add", "parser/parse_test.go", "--rank", "250", r)

	out = must(t, "evidence", "toggle", "off", "100-199", r)
	if !strings.Contains(out, "100_flow_sh_100_200.evidence.md.skip: skipped") {
		t.Errorf("toggle off:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "ctx", "evidence", "110_parse_go_parse.evidence.md.skip")); err != nil {
		t.Errorf("range toggle did not skip 110: %v", err)
	}
	must(t, "evidence", "toggle", "on", "110", r)
	must(t, "evidence", "toggle", "100_flow_sh_100_200", r)

	out = must(t, "evidence", "status", "--json", r)
	var st struct {
		Parts []struct {
			ID     string   `json:"id"`
			States []string `json:"states"`
			Tokens int      `json:"tokens"`
		} `json:"parts"`
		Tokens int `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	var ids []string
	for _, p := range st.Parts {
		ids = append(ids, p.ID+":"+p.States[0])
		if p.Tokens <= 0 {
			t.Errorf("part %s has %d tokens", p.ID, p.Tokens)
		}
	}
	want := "010_request:active 100_flow_sh_100_200:active 110_parse_go_parse:active 250_parse_test_go:active 300_render_go_render:active"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("parts\n got %s\nwant %s", got, want)
	}

	// A taken rank is refused and the flow is left as it was.
	before := tree(t, dir)
	_, errOut, code := runCLI(t, "evidence", "rank", "300_render_go_render", "110", r)
	if code != 1 || !strings.Contains(errOut, "rank 110 is taken by 110_parse_go_parse") || !strings.Contains(errOut, "free nearby") {
		t.Errorf("rank to a taken rank: exit %d %s", code, errOut)
	}
	if tree(t, dir) != before {
		t.Error("a refused rank changed the flow")
	}
	must(t, "evidence", "rank", "300_render_go_render", "120", r)
	out = must(t, "evidence", "rebase", r)
	if !strings.Contains(out, "250_parse_test_go -> 200_parse_test_go") {
		t.Errorf("rebase:\n%s", out)
	}
	must(t, "evidence", "remove", "200_parse_test_go", r)
	if _, err := os.Stat(filepath.Join(dir, "build", "removed", "200_parse_test_go.evidence.md")); err != nil {
		t.Errorf("removed part not kept: %v", err)
	}
	out = must(t, "evidence", "status", r)
	if strings.Contains(out, "parse_test") || !strings.Contains(out, "120_render_go_render") {
		t.Errorf("status after rank/rebase/remove:\n%s", out)
	}
}

func TestEvidenceBadInputLeavesFlowIntact(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "core/flow.sh::1,10", r)
	dir := flowDir(t, root)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret\n"), 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, dir)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"evidence", "add", "../etc/passwd"}, 1, "leaves the workspace"},
		{[]string{"evidence", "add", filepath.Join(outside, "secret.txt")}, 1, "outside the workspace"},
		{[]string{"evidence", "add", "escape.txt"}, 1, "is a symlink to"},
		{[]string{"evidence", "add", "core/flow.sh::400"}, 1, "past the end of core/flow.sh (300 lines)"},
		{[]string{"evidence", "add", "core/flow.sh::10,x"}, 2, "at column 18"},
		{[]string{"evidence", "add", "core/flow.sh::20,10"}, 2, "ends (10) before it starts (20)"},
		{[]string{"evidence", "add", "nope.go"}, 1, "no such file: nope.go"},
		{[]string{"evidence", "add", "core/flow.sh::1,10"}, 1, "already in the flow as 100_flow_sh_1_10"},
		{[]string{"evidence", "add", "render/render.go", "--rank", "100"}, 1, "rank 100 is taken by 100_flow_sh_1_10"},
		{[]string{"evidence", "add", "@NoSuchThing"}, 1, "no symbol @NoSuchThing"},
		{[]string{"evidence", "add", "parser/parse.go::@Prase"}, 1, "did you mean Parse"},
		{[]string{"evidence", "toggle", "999_nothing"}, 1, "no part \"999_nothing\""},
		{[]string{"evidence", "tgogle", "100"}, 2, "did you mean `evidence toggle`"},
		{[]string{"evidence", "budget", "set", "lots"}, 2, "bad token count"},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(t, append(c.args, r)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d (want %d)\nstdout %s\nstderr %s\nwant %q", c.args, code, c.code, out, errOut, c.want)
		}
	}
	if got := tree(t, dir); got != before {
		t.Errorf("bad input changed the flow:\nbefore\n%s\nafter\n%s", before, got)
	}

	// Hand-made trouble is reported, never deleted.
	ev := filepath.Join(dir, "ctx", "evidence")
	os.WriteFile(filepath.Join(ev, "notes.txt"), []byte("mine\n"), 0o644)
	os.WriteFile(filepath.Join(ev, "100_dup.evidence.md"), []byte("dup\n"), 0o644)
	out := must(t, "evidence", "status", r)
	if !strings.Contains(out, "ctx/evidence/notes.txt: not a part name") || !strings.Contains(out, "rank 100 is used by 100_dup and 100_flow_sh_1_10") {
		t.Errorf("status does not report the problems:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(ev, "notes.txt")); err != nil {
		t.Error("an unrecognised file was deleted")
	}
	_, errOut, code := runCLI(t, "evidence", "toggle", "100", r)
	if code != 1 || !strings.Contains(errOut, "rank 100 names 2 parts") {
		t.Errorf("ambiguous rank: exit %d %s", code, errOut)
	}
}

func TestEvidenceReadOnlyFlow(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "core/flow.sh::1,10", r)
	dir := flowDir(t, root)
	ev := filepath.Join(dir, "ctx", "evidence")
	os.Chmod(ev, 0o555)
	defer os.Chmod(ev, 0o755)
	if f, err := os.CreateTemp(ev, "probe"); err == nil {
		f.Close()
		os.Remove(f.Name())
		t.Skip("running with privileges that ignore directory permissions")
	}
	before := tree(t, dir)
	_, errOut, code := runCLI(t, "evidence", "add", "core/flow.sh::20,30", r)
	if code != 1 || !strings.Contains(errOut, "read-only") {
		t.Errorf("add to a read-only flow: exit %d %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "evidence", "toggle", "100", r)
	if code != 1 || !strings.Contains(errOut, "read-only") {
		t.Errorf("toggle in a read-only flow: exit %d %s", code, errOut)
	}
	if tree(t, dir) != before {
		t.Error("a failed write changed the flow")
	}
}

func TestFocusFitAndRestore(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "parser/parse.go", r)
	must(t, "evidence", "add", "render/render.go", r)
	must(t, "evidence", "add", "core/flow.sh::1,40", r)
	must(t, "evidence", "add", "parser/parse_test.go", "--band", "supporting", r)
	must(t, "evidence", "toggle", "off", "200", r) // skipped before focus: must stay skipped after
	dir := flowDir(t, root)
	before := tree(t, dir)

	out := must(t, "evidence", "focus", "error handling syntax", r)
	if !strings.Contains(out, "keep 100_parse_go") || !strings.Contains(out, "skipped: 110_render_go, 120_flow_sh_1_40") {
		t.Errorf("focus:\n%s", out)
	}
	out = must(t, "evidence", "status", r)
	if !strings.Contains(out, "Focus: \"error handling syntax\"") {
		t.Errorf("status does not show the focus:\n%s", out)
	}
	must(t, "evidence", "focus", "colours widths", r) // a second focus keeps the first saved state
	out = must(t, "evidence", "focus", "off", r)
	if !strings.Contains(out, "restored") {
		t.Errorf("focus off:\n%s", out)
	}
	if got := tree(t, dir); got != before {
		t.Errorf("focus off did not restore the flow:\nbefore\n%s\nafter\n%s", before, got)
	}
	_, errOut, code := runCLI(t, "evidence", "focus", "zebra quasar", r)
	if code != 1 || !strings.Contains(errOut, "no evidence matches") {
		t.Errorf("focus with no match: exit %d %s", code, errOut)
	}

	// fit: the highest ranks degrade first; pinned parts never do.
	must(t, "evidence", "pin", "100_parse_go", r)
	out = must(t, "evidence", "fit", "60", r)
	if strings.Contains(out, "100_parse_go") || !strings.Contains(out, "120_flow_sh_1_40") {
		t.Errorf("fit touched a pinned part or skipped the highest rank:\n%s", out)
	}
	if i, j := strings.Index(out, "120_flow_sh_1_40"), strings.Index(out, "110_render_go"); i < 0 || j >= 0 && j < i {
		t.Errorf("fit did not start at the highest rank:\n%s", out)
	}
	plan := must(t, "evidence", "plan", r)
	if !strings.Contains(plan, `"detail": "`) {
		t.Errorf("plan does not record fit's detail levels:\n%s", plan)
	}
	must(t, "evidence", "fit", "off", r)
	must(t, "evidence", "pin", "100_parse_go", "off", r)
	if got := tree(t, dir); got != before {
		t.Errorf("fit off did not restore the flow:\nbefore\n%s\nafter\n%s", before, got)
	}
}

func TestAssembleFormatsEnvAndCopy(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "--role", "system", "--text", "Answer in English.", r)
	must(t, "evidence", "add", "parser/parse.go::@Parse", r)
	must(t, "evidence", "add", "render/render.go", r)
	dir := flowDir(t, root)

	md := must(t, "assemble", r)
	if !strings.HasPrefix(md, "<!-- mdctx:version=1.0; flow_id="+filepath.Base(dir)+"; assembly=lexical -->\n\n# System\n\nAnswer in English.\n\n# User Request\n\nFix the parser's error handling.\n\n## Evidence: parser/parse.go\n<!-- source_uri=file://ctx/evidence/100_parse_go_parse.evidence.md; cid=sha256:") {
		t.Errorf("mdctx:\n%s", md)
	}
	if saved, _ := os.ReadFile(filepath.Join(dir, "build", "prompt.mdctx")); string(saved) != md {
		t.Error("build/prompt.mdctx differs from what assemble printed")
	}
	var plan struct {
		FlowID      string `json:"flow_id"`
		OrderRule   string `json:"order_rule"`
		TotalTokens int    `json:"total_tokens"`
		CtxDigest   string `json:"ctx_digest"`
		Parts       []struct {
			Rank, Kind, Role, URI, CID, Status string
			Bytes, Tokens                      int
		} `json:"parts"`
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "build", "ctxplan.json"))
	if err := json.Unmarshal(raw, &plan); err != nil || plan.OrderRule != "lexical" || len(plan.Parts) != 4 || plan.Parts[2].URI != "file://ctx/evidence/100_parse_go_parse.evidence.md" || !strings.HasPrefix(plan.CtxDigest, "sha256:") {
		t.Errorf("ctxplan.json (%v):\n%s", err, raw)
	}

	aptix := must(t, "assemble", "--format", "aptix", r)
	if !strings.HasPrefix(aptix, "[CONTEXT]\n\n=== CHUNK 1 ===\nId: parser/parse.go::@Parse\nPath: parser/parse.go\nLines: 8-14\nLanguage: go\n```go\n// Parse reads") ||
		!strings.Contains(aptix, "```\n\n=== CHUNK 2 ===\nId: render/render.go\nPath: render/render.go\nLines: 1-6\nLanguage: go\n```go\npackage render\n") {
		t.Errorf("aptix:\n%s", aptix)
	}
	resp := must(t, "assemble", "--format", "responses", r)
	var doc struct {
		Instructions string `json:"instructions"`
		Input        []struct {
			Role    string `json:"role"`
			Content []struct{ Type, Text string }
		} `json:"input"`
	}
	if err := json.Unmarshal([]byte(resp), &doc); err != nil || len(doc.Input) != 1 || doc.Input[0].Role != "user" || len(doc.Input[0].Content) != 2 ||
		doc.Input[0].Content[0].Text != "[MODE: ask]\n[INSTRUCTION]\nFix the parser's error handling.\n" || doc.Input[0].Content[1].Text != aptix ||
		doc.Instructions != "Answer in English.\n" || doc.Input[0].Content[0].Type != "input_text" {
		t.Errorf("responses (%v):\n%s", err, resp)
	}
	pack := must(t, "assemble", "--format", "pack", r)
	for _, want := range []string{"task:", "goal:", "evidence:", "file: parser/parse.go"} {
		if !strings.Contains(pack, want) {
			t.Errorf("pack lacks %q:\n%s", want, pack)
		}
	}

	out := must(t, "assemble", "--format", "aptix", "--out", filepath.Join(root, "p.txt"), r)
	if got, _ := os.ReadFile(filepath.Join(root, "p.txt")); string(got) != aptix || !strings.Contains(out, "✓ Wrote") {
		t.Errorf("--out wrote %d bytes, printed %s", len(got), out)
	}
	// --out to a FIFO writes into it, as a shell's > would: a reader that
	// has it open gets the prompt, and the FIFO is still there.
	fifo := filepath.Join(t.TempDir(), "p.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		must(t, "assemble", "--format", "aptix", "--out", fifo, r)
		got, _ := io.ReadAll(rd)
		rd.Close()
		if st, err := os.Lstat(fifo); string(got) != aptix || err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("--out to a FIFO: its reader got %d bytes; now %v %v", len(got), st.Mode(), err)
		}
	}
	out = must(t, "assemble", "--copy", "--copy-method", "file", r)
	if got, _ := os.ReadFile(filepath.Join(dir, "build", "clipboard.txt")); string(got) != md || !strings.Contains(out, "via file") || !strings.Contains(out, "tokens") {
		t.Errorf("--copy to a file: %s", out)
	}
	_, errOut, code := runCLI(t, "assemble", "--format", "html", r)
	if code != 2 || !strings.Contains(errOut, "unknown format \"html\"") {
		t.Errorf("bad format: exit %d %s", code, errOut)
	}

	env := must(t, "env", r)
	want := "export FLOW_DIR='" + dir + "'\nexport EVIDENCE_COUNT='2'\nexport e1='" + filepath.Join(dir, "ctx", "evidence", "100_parse_go_parse.evidence.md") + "'\n"
	if !strings.HasPrefix(env, want) {
		t.Errorf("env:\n%s\nwant prefix\n%s", env, want)
	}

	// FLOW_DIR selects a flow anywhere, and a hand-made one works.
	other := t.TempDir()
	os.MkdirAll(filepath.Join(other, "ctx", "evidence"), 0o755)
	os.WriteFile(filepath.Join(other, "ctx", "000_policy.system.md"), []byte("Be brief.\n"), 0o644)
	os.WriteFile(filepath.Join(other, "ctx", "evidence", "100_note.evidence.md"), []byte("Hand-written note.\n"), 0o644)
	t.Setenv("FLOW_DIR", other)
	md = must(t, "assemble", r)
	if md != "<!-- mdctx:version=1.0; flow_id="+filepath.Base(other)+"; assembly=lexical -->\n\n# System\n\nBe brief.\n\n## Evidence: note\n<!-- source_uri=file://ctx/evidence/100_note.evidence.md; cid=sha256:"+sha("Hand-written note.\n")+" -->\n\nHand-written note.\n\n" {
		t.Errorf("FLOW_DIR flow:\n%q", md)
	}
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestFlowNewListUseShow(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	first := filepath.Base(flowDir(t, root))
	out := must(t, "flow", "new", "second try", "--mode", "explain", "--model", "claude-sonnet-4", r)
	if !strings.Contains(out, "✓ Flow second-try-") {
		t.Errorf("flow new: %s", out)
	}
	out = must(t, "flow", "show", r)
	if !strings.Contains(out, "Mode:    explain") || !strings.Contains(out, "estimate") {
		t.Errorf("flow show for an estimate model:\n%s", out)
	}
	out = must(t, "flow", "list", r)
	if !strings.Contains(out, "* second-try-") || !strings.Contains(out, "  "+first) {
		t.Errorf("flow list:\n%s", out)
	}
	must(t, "flow", "use", first, r)
	if filepath.Base(flowDir(t, root)) != first {
		t.Error("flow use did not switch")
	}
	_, errOut, code := runCLI(t, "flow", "use", "nope", r)
	if code != 1 || !strings.Contains(errOut, "no flow \"nope\"") {
		t.Errorf("flow use nope: exit %d %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "flow", "new", "x", "--model", "gpt-9000-ultra", r)
	if code != 2 || !strings.Contains(errOut, "gpt-9000-ultra") {
		t.Errorf("unknown model: exit %d %s", code, errOut)
	}
}

func TestRefreshStaleAndAsk(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "render/render.go", r)
	must(t, "evidence", "add", "parser/parse.go::8,14", r)
	must(t, "evidence", "add", "parser/parse.go::9,12", "--force", r) // inside 8-14: a narrower copy
	os.WriteFile(filepath.Join(root, "render", "render.go"), []byte("package render\n\n// Render draws.\nfunc Render(tree string) string { return tree }\n"), 0o644)
	out := must(t, "evidence", "status", r)
	if !strings.Contains(out, "active,changed") {
		t.Errorf("status does not mark the changed part:\n%s", out)
	}
	out = must(t, "evidence", "refresh", r)
	if !strings.Contains(out, "✓ changed  100_render_go") || !strings.Contains(out, "+func Render(tree string) string { return tree }") {
		t.Errorf("refresh:\n%s", out)
	}
	if out = must(t, "evidence", "status", r); strings.Contains(out, "changed") {
		t.Errorf("still stale after refresh:\n%s", out)
	}
	out = must(t, "ask", "what evidence is redundant?", r)
	if !strings.Contains(out, "110_parse_go_parse and 120_parse_go_9_12 overlap in parser/parse.go (4 lines)") {
		t.Errorf("ask redundant:\n%s", out)
	}
	out = must(t, "ask", "what evidence covers rendering?", r)
	if !strings.Contains(out, "100_render_go") || strings.Contains(out, "parse_go") {
		t.Errorf("ask covers:\n%s", out)
	}
	out = must(t, "ask", "what is missing for the parser test?", r)
	if !strings.Contains(out, "parser/parse_test.go::") {
		t.Errorf("ask missing:\n%s", out)
	}
	out = must(t, "evidence", "deps", "100_render_go", r)
	if !strings.Contains(out, "defines 1 name(s): Render") {
		t.Errorf("deps:\n%s", out)
	}
	// 120 is a narrower copy of 110's lines (ask reports it as redundant),
	// not a reference; the test that calls Parse is.
	must(t, "evidence", "add", "parser/parse_test.go", r)
	out = must(t, "evidence", "deps", "110", r)
	if !strings.Contains(out, "Referenced by 130_parse_test_go.evidence.md") || strings.Contains(out, "120_parse_go_9_12") {
		t.Errorf("deps 110:\n%s", out)
	}
}

func TestGatherAndFromOutput(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	out := must(t, "evidence", "gather", "fix", "parser/parse.go::@Parse", r)
	if !strings.Contains(out, "100_parse_go_parse") || !strings.Contains(out, "test") || !strings.Contains(out, "parser/parse_test.go") {
		t.Errorf("gather fix:\n%s", out)
	}
	log := filepath.Join(root, "test.log")
	os.WriteFile(log, []byte("--- FAIL: TestParse (0.00s)\n    parse_test.go:7: want an error\nFAIL\nFAIL\texample.com/m/parser\t0.002s\n"+
		"panic: boom\n\ngoroutine 1 [running]:\nexample.com/m/render.Render(...)\n\t"+filepath.Join(root, "render", "render.go")+":5 +0x1d\n"), 0o644)
	out = must(t, "evidence", "from-output", log, r)
	if !strings.Contains(out, "render/render.go:5") || !strings.Contains(out, "✓ Added") {
		t.Errorf("from-output:\n%s", out)
	}
	pack := must(t, "assemble", "--format", "pack", r)
	if !strings.Contains(pack, "diagnostics:") || !strings.Contains(pack, "render/render.go") || !strings.Contains(pack, "terminal_output:") {
		t.Errorf("pack lacks the output's diagnostics:\n%s", pack)
	}
	_, errOut, code := runCLI(t, "evidence", "from-output", "-", r)
	if code != 1 || !strings.Contains(errOut, "none inside the workspace") {
		t.Errorf("from-output of empty stdin: exit %d %s", code, errOut)
	}
}

// TestReviewRegressions pins fixes found in review: each case once lost
// state, left a flow half-changed or misreported a part.
func TestReviewRegressions(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	dir := flowDir(t, root)
	os.WriteFile(filepath.Join(root, "nonl.txt"), []byte("no final newline"), 0o644)

	// A byte span and a file without a final newline are not "edited".
	must(t, "evidence", "add", "core/flow.sh::0c,13c", "nonl.txt", r)
	out := must(t, "evidence", "status", r)
	if strings.Contains(out, "edited") {
		t.Errorf("fresh parts marked edited:\n%s", out)
	}
	aptix := must(t, "assemble", "--format", "aptix", r)
	if !strings.Contains(aptix, "Path: core/flow.sh\nLines: 1-2\n") {
		t.Errorf("a byte span's Lines are not its lines in the file:\n%s", aptix)
	}

	// remove forgets the part's state; a new part with its id starts clean.
	must(t, "evidence", "pin", "100", r)
	must(t, "evidence", "remove", "100", r)
	must(t, "evidence", "add", "core/flow.sh::0c,13c", "--rank", "100", r)
	if out = must(t, "evidence", "status", r); strings.Contains(out, "pinned") {
		t.Errorf("a re-added part inherited the removed one's pin:\n%s", out)
	}
	must(t, "evidence", "remove", "100", r) // a second removal keeps the first copy
	if matches, _ := filepath.Glob(filepath.Join(dir, "build", "removed", "100_flow_sh_0_13c.evidence.md*")); len(matches) != 2 {
		t.Errorf("removed copies: %v", matches)
	}

	// A part added between two focuses comes back with focus off.
	must(t, "evidence", "add", "render/render.go", r)
	must(t, "evidence", "focus", "newline", r)
	must(t, "evidence", "add", "parser/parse.go", r)
	must(t, "evidence", "focus", "colours", r)
	must(t, "evidence", "focus", "off", r)
	out = must(t, "evidence", "status", "--json", r)
	if strings.Contains(out, `"skipped"`) {
		t.Errorf("focus off left parts skipped:\n%s", out)
	}

	// rebase keeps system parts before the user request.
	must(t, "evidence", "add", "--role", "system", "--text", "Be exact.", r)
	out = must(t, "evidence", "rebase", r)
	if strings.Contains(out, "010_request ->") {
		t.Errorf("rebase moved the request:\n%s", out)
	}
	md := must(t, "assemble", r)
	if strings.Index(md, "# System") > strings.Index(md, "# User Request") {
		t.Errorf("system after user:\n%s", md)
	}

	// An unreadable part file is reported, not fatal.
	ev := filepath.Join(dir, "ctx", "evidence")
	os.Symlink(filepath.Join(root, "gone"), filepath.Join(ev, "400_gone.evidence.md"))
	out = must(t, "evidence", "status", r)
	if !strings.Contains(out, "400_gone") || !strings.Contains(out, "broken") {
		t.Errorf("broken part not shown:\n%s", out)
	}
	os.Remove(filepath.Join(ev, "400_gone.evidence.md"))

	// A hand-edited span that points before the file is not a panic.
	p := filepath.Join(ev, "100_nonl_txt.evidence.md")
	if raw, err := os.ReadFile(p); err == nil {
		os.WriteFile(p, []byte(strings.Replace(string(raw), "span=all", "span=bytes=-1:13", 1)), 0o644)
	}
	must(t, "evidence", "status", r)

	// fit that fails midway still records what it skipped.
	must(t, "evidence", "toggle", "on", "0-999", r)
	parts, _ := filepath.Glob(filepath.Join(ev, "*.evidence.md"))
	sort.Strings(parts)
	first := parts[0]
	raw, _ := os.ReadFile(first)
	os.WriteFile(first+".skip", raw, 0o644) // the lowest rank cannot be skipped: its .skip exists
	runCLI(t, "evidence", "fit", "1", r)
	os.Remove(first + ".skip")
	must(t, "evidence", "fit", "off", r)
	if out = must(t, "evidence", "status", "--json", r); strings.Contains(out, `"skipped"`) {
		t.Errorf("fit off after a failed fit left parts skipped:\n%s", out)
	}
}

// ask and focus read search scores as absolute, with search's own
// threshold (search.DefaultMinScore, 0.1): below it a hit is no candidate,
// at or above it a hit is listed ("parser test" scores render.go's Render
// 0.14, Parse 0.22) and a hit inside a part keeps the part ("expression
// colours" scores Parse 0.28, which the part of its lines 9-14 holds
// without the word).
func TestAskAndFocusAbsoluteScores(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	out := must(t, "ask", "what is missing for the parser test?", r)
	if !strings.Contains(out, "parser/parse_test.go::5,9") || !strings.Contains(out, "render/render.go") {
		t.Errorf("ask missing leaves out hits at or above the minimum score:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || !strings.Contains(f[0], "::") {
			continue
		}
		if score, err := strconv.ParseFloat(f[len(f)-1], 64); err != nil || score < search.DefaultMinScore {
			t.Errorf("ask missing lists a hit below the minimum score %.2f: %q", search.DefaultMinScore, line)
		}
	}
	if out := must(t, "ask", "what is missing for xyzzyplugh?", r); !strings.Contains(out, "nothing") {
		t.Errorf("ask missing, nothing matches:\n%s", out)
	}
	must(t, "evidence", "add", "render/render.go", r)
	must(t, "evidence", "add", "parser/parse.go::9,14", r)
	must(t, "evidence", "add", "core/flow.sh::1,5", r)
	out = must(t, "evidence", "focus", "expression colours", r)
	st := must(t, "evidence", "status", r)
	for _, want := range []string{"100_render_go", "110_parse_go_9_14"} {
		if !strings.Contains(out, want) || !statusIs(st, want, "active") {
			t.Errorf("focus skipped %s:\n%s\n%s", want, out, st)
		}
	}
	if !statusIs(st, "120_flow_sh_1_5", "skipped") {
		t.Errorf("focus kept core/flow.sh:\n%s", st)
	}
}

// statusIs reports whether the status line of part id shows state.
func statusIs(status, id, state string) bool {
	for _, line := range strings.Split(status, "\n") {
		if strings.Contains(line, id) {
			return strings.Contains(line, state)
		}
	}
	return false
}
