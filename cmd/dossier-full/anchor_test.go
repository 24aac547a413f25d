package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// edit rewrites a file of root with fn applied to its text.
func edit(t *testing.T, root, rel string, fn func(string) string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(fn(string(raw))), 0o644); err != nil {
		t.Fatal(err)
	}
}

// partText is the text of the part file whose name starts with id.
func partText(t *testing.T, root, id string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(flowDir(t, root), "ctx", "evidence", id+"*"))
	if len(m) != 1 {
		t.Fatalf("part %s: %v", id, m)
	}
	raw, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// wantAll fails the test for each of wants that out, what printed, lacks.
func wantAll(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, out)
		}
	}
}

// statesOf is the states column of status for part id.
func statesOf(t *testing.T, root, id string) string {
	t.Helper()
	for _, l := range strings.Split(must(t, "evidence", "status", "--root="+root), "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == id {
			return f[2]
		}
	}
	t.Fatalf("no part %s in status", id)
	return ""
}

// TestPartsFollowTheirCode changes the code under a flow (lines inserted
// above, an edit inside, a rename, a deletion) and checks that each part
// is found again by its symbol or its content, or marked lost with its
// old text kept, never silently given other lines.
func TestPartsFollowTheirCode(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	gitRun(t, root, "init", "-q")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-qm", "one")
	must(t, "evidence", "add", "parser/parse.go::@Parse", r) // 100: a symbol
	must(t, "evidence", "add", "render/render.go::4,6", r)   // 110: lines, not a whole chunk
	must(t, "evidence", "add", "core/flow.sh::100c,130c", r) // 120: bytes
	must(t, "evidence", "add", "parser/parse.go::16,18", r)  // 130: normalize's lines are its chunk
	if p := partText(t, root, "130"); !strings.Contains(p, "; symbol=normalize") || !strings.Contains(partText(t, root, "130_parse_go_normalize"), "func normalize") {
		t.Errorf("lines that are exactly a symbol's chunk do not record it:\n%s", p)
	}
	if p := partText(t, root, "100"); !regexp.MustCompile(`; anchor=~?[0-9a-f]{8}:~?[0-9a-f]{8}:(~?[0-9a-f]{8})?:(~?[0-9a-f]{8})?; file=[0-9a-f]{16}; commit=[0-9a-f]{40} -->`).MatchString(p) {
		t.Errorf("provenance lacks the anchor and the commit:\n%s", p)
	}

	// Lines inserted above every part: each moved, with its text.
	edit(t, root, "parser/parse.go", func(s string) string { return "// Package parser parses.\n" + s })
	edit(t, root, "render/render.go", func(s string) string { return "// Package render renders.\n\n" + s })
	edit(t, root, "core/flow.sh", func(s string) string { return "#!/bin/sh\n" + s })
	for _, id := range []string{"100_parse_go_parse", "110_render_go_4_6", "120_flow_sh_100_130c", "130_parse_go_normalize"} {
		if st := statesOf(t, root, id); st != "active,moved" {
			t.Errorf("%s after lines were inserted above it: %s", id, st)
		}
	}
	if _, errOut, _ := runCLI(t, "assemble", r); !strings.Contains(errOut, "warning: 4 part(s) moved in their source (the same text, old line numbers): 100_parse_go_parse, 110_render_go_4_6, 120_flow_sh_100_130c, 130_parse_go_normalize") {
		t.Errorf("assemble does not warn of the moved parts:\n%s", errOut)
	}
	out := must(t, "evidence", "refresh", r)
	wantAll(t, "refresh", out,
		"✓ moved    100_parse_go_parse: lines 8-14 are now 9-15",
		"✓ moved    110_render_go_4_6: lines 4-6 are now 6-8",
		"✓ moved    120_flow_sh_100_130c: bytes 100-130 are now 110-140",
		"✓ moved    130_parse_go_normalize: lines 16-18 are now 17-19",
	)
	p := partText(t, root, "110")
	if !strings.Contains(p, "span=lines=6:8") || !strings.Contains(p, "```go\nfunc Render(tree string) string {\n\treturn \"<\" + tree + \">\"\n}\n```") || !strings.Contains(p, "; dirty=yes") {
		t.Errorf("the moved range part:\n%s", p)
	}
	if js := must(t, "evidence", "status", "--json", r); !regexp.MustCompile(`"id": "110_render_go_4_6",[^}]*"commit": "[0-9a-f]{40}",\s*"dirty": true`).MatchString(js) {
		t.Errorf("status --json lacks the commit and dirty mark:\n%s", js)
	}
	if out := must(t, "evidence", "refresh", r); !strings.Contains(out, "unchanged: 100_parse_go_parse, 110_render_go_4_6, 120_flow_sh_100_130c, 130_parse_go_normalize") {
		t.Errorf("a second refresh:\n%s", out)
	}

	// An edit inside: the symbol part holds the function as
	// `evidence add PATH::@Parse` gives it now; the range part is found by
	// its first and last lines.
	edit(t, root, "parser/parse.go", func(s string) string {
		return strings.Replace(s, "\treturn normalize(src), nil\n", "\tsrc = strings.TrimSpace(src)\n\treturn normalize(src), nil\n", 1)
	})
	edit(t, root, "render/render.go", func(s string) string { return strings.Replace(s, `"<" + tree + ">"`, `"[" + tree + "]"`, 1) })
	if st := statesOf(t, root, "100_parse_go_parse"); st != "active,changed" {
		t.Errorf("after an edit inside: %s", st)
	}
	diff := must(t, "flow", "diff", r)
	wantAll(t, "flow diff", diff, "  changed  100_parse_go_parse: found by @Parse", "      +\tsrc = strings.TrimSpace(src)", "  moved    130_parse_go_normalize: lines 17-19 are now 18-20", "unchanged: 120_flow_sh_100_130c")
	if show := must(t, "flow", "show", r); !regexp.MustCompile(`Commits: [0-9a-f]{12} \(all 4 part\(s\)\); 4 part\(s\) from uncommitted changes`).MatchString(show) {
		t.Errorf("flow show lacks the commit range:\n%s", show)
	}
	out = must(t, "evidence", "refresh", r)
	wantAll(t, "refresh", out,
		"✓ changed  100_parse_go_parse: found by @Parse at lines 9-16 (were 9-15), its text changed",
		"+\tsrc = strings.TrimSpace(src)",
		"✓ changed  110_render_go_4_6: found by its first and last lines at lines 6-8 (were 6-8), its text changed",
		"-\treturn \"<\" + tree + \">\"",
	)
	first, refreshed := filepath.Base(flowDir(t, root)), partText(t, root, "100")
	must(t, "flow", "new", "again", r)
	must(t, "evidence", "add", "parser/parse.go::@Parse", r)
	if added := partText(t, root, "100"); added != refreshed {
		t.Errorf("the refreshed part is not what add gives now:\n%s\n----\n%s", refreshed, added)
	}
	must(t, "flow", "use", first, r)

	// A rename and a deletion: lost, the old text kept, exit 1.
	edit(t, root, "parser/parse.go", func(s string) string { return strings.Replace(s, "func Parse(", "func ParseExpr(", 1) })
	edit(t, root, "render/render.go", func(s string) string { return s[:strings.Index(s, "// Render")] })
	before := partText(t, root, "100")
	if st := statesOf(t, root, "100_parse_go_parse"); st != "active,lost" {
		t.Errorf("after a rename: %s", st)
	}
	out, _, code := runCLI(t, "evidence", "refresh", r)
	if code != 1 || !strings.Contains(out, "✗ lost     100_parse_go_parse") || !strings.Contains(out, "✗ lost     110_render_go_4_6: its first line (line 6) is gone from render/render.go") {
		t.Errorf("refresh of lost parts: exit %d\n%s", code, out)
	}
	if partText(t, root, "100") != before {
		t.Error("a lost part's text changed")
	}
	// A deleted source loses its part; the others are still refreshed.
	os.Remove(filepath.Join(root, "core", "flow.sh"))
	edit(t, root, "parser/parse.go", func(s string) string { return "\n" + s })
	out, _, code = runCLI(t, "evidence", "refresh", r)
	if code != 1 || !strings.Contains(out, "✗ lost     120_flow_sh_100_130c: core/flow.sh cannot be read now") || !strings.Contains(out, "✓ moved    130_parse_go_normalize") {
		t.Errorf("refresh with a deleted source: exit %d\n%s", code, out)
	}
}

// TestSpansComeFromTheFileAsItIsNow: from-output and gather take their
// spans from the file on disk, not from an index older than it, and
// `--as-indexed` lines (a search hit's) are found again in it.
func TestSpansComeFromTheFileAsItIsNow(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	// One line added to Parse, not indexed.
	edit(t, root, "parser/parse.go", func(s string) string {
		return strings.Replace(s, "\treturn normalize(src), nil\n", "\tsrc += \" \"\n\treturn normalize(src), nil\n", 1)
	})
	log := filepath.Join(root, "test.log")
	os.WriteFile(log, []byte("--- FAIL: TestParse (0.00s)\n    parse.go:14: bad\nFAIL\n"), 0o644)
	must(t, "evidence", "from-output", log, r)
	p := partText(t, root, "100")
	if !strings.Contains(p, "symbol=Parse") || !strings.HasSuffix(p, "\treturn normalize(src), nil\n}\n```\n") {
		t.Errorf("from-output's part is not the function as it is now:\n%s", p)
	}
	must(t, "index", r)
	if out := must(t, "evidence", "refresh", r); !strings.Contains(out, "unchanged: 100_parse_go_parse") {
		t.Errorf("refresh after index:\n%s", out)
	}

	// A search hit's lines, from an index older than the file.
	edit(t, root, "render/render.go", func(s string) string { return "// Package render renders.\n" + s })
	must(t, "evidence", "add", "--as-indexed", "render/render.go::4,6", r)
	if p := partText(t, root, "110"); !strings.Contains(p, "span=lines=5:7") || !strings.Contains(p, "```go\nfunc Render(") {
		t.Errorf("--as-indexed did not follow the lines:\n%s", p)
	}
	edit(t, root, "render/render.go", func(s string) string { return "package render\n" })
	if _, errOut, code := runCLI(t, "evidence", "add", "--as-indexed", "render/render.go::3,6", r); code != 1 || !strings.Contains(errOut, "changed since it was indexed") {
		t.Errorf("--as-indexed lines that are gone: exit %d %s", code, errOut)
	}
}

// TestFlowExportImport: a flow travels as one file to another checkout,
// where import reports how each part's source stands there and refresh
// re-anchors it; a file that would leave the flow is refused whole.
func TestFlowExportImport(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	gitRun(t, root, "init", "-q")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-qm", "one")
	must(t, "evidence", "add", "parser/parse.go::@Parse", r)
	must(t, "evidence", "add", "render/render.go::4,6", r)
	must(t, "evidence", "add", "--link", "core/flow.sh", r)
	turns := filepath.Join(flowDir(t, root), "turns")
	os.MkdirAll(turns, 0o755)
	os.WriteFile(filepath.Join(turns, "001.answer.md"), []byte("an answer\n"), 0o644)
	os.WriteFile(filepath.Join(turns, "notes.txt"), []byte("not a turn\n"), 0o644)
	bundle := filepath.Join(t.TempDir(), "fix.flow.json")
	if out := must(t, "flow", "export", "--out", bundle, r); !regexp.MustCompile(`✓ Exported fix-parser-\S+ \(4 part\(s\), 1 turn file\(s\)\) to .*\n  Commits: [0-9a-f]{12} \(all 2 part\(s\)\)`).MatchString(out) {
		t.Errorf("export:\n%s", out)
	}

	// A teammate's checkout, a commit later: lines above both functions.
	other := t.TempDir()
	gitRun(t, other, "clone", "-q", root, ".")
	edit(t, other, "parser/parse.go", func(s string) string { return "// Package parser parses.\n" + s })
	edit(t, other, "render/render.go", func(s string) string { return "// Package render renders.\n" + s })
	o := "--root=" + other
	out := must(t, "flow", "import", bundle, o)
	wantAll(t, "import", out, "✓ Imported flow fix-parser-", "moved    100_parse_go_parse: lines 8-14 are now 9-15", "moved    110_render_go_4_6: lines 4-6 are now 5-7")
	if raw, err := os.ReadFile(filepath.Join(flowDir(t, other), "turns", "001.answer.md")); err != nil || string(raw) != "an answer\n" {
		t.Errorf("the turn did not travel: %q %v", raw, err)
	}
	must(t, "evidence", "refresh", o)
	if p := partText(t, other, "110"); !strings.Contains(p, "span=lines=5:7") {
		t.Errorf("the imported part was not re-anchored:\n%s", p)
	}
	if md := must(t, "assemble", o); !strings.Contains(md, "echo line 300") {
		t.Errorf("the imported link part does not read the checkout's file")
	}

	// A bundle with a file outside the flow imports nothing.
	raw, _ := os.ReadFile(bundle)
	bad := filepath.Join(t.TempDir(), "bad.flow.json")
	os.WriteFile(bad, []byte(strings.Replace(string(raw), `"path": "ctx/evidence/100_parse_go_parse.evidence.md"`, `"path": "ctx/evidence/../../../../x.md"`, 1)), 0o644)
	flows, _ := os.ReadDir(filepath.Join(other, ".dossier", "flows"))
	if _, errOut, code := runCLI(t, "flow", "import", bad, o); code != 1 || !strings.Contains(errOut, "is not a plain path inside a flow; nothing was imported") {
		t.Errorf("a bundle leaving the flow: exit %d %s", code, errOut)
	}
	// Nor does one whose link names what `add --link` refuses.
	os.WriteFile(filepath.Join(other, ".env"), []byte("PASSWORD=hunter2hunter2\n"), 0o644)
	for _, target := range []string{".git/config", ".env"} {
		os.WriteFile(bad, []byte(strings.Replace(string(raw), `"link": "core/flow.sh"`, `"link": "`+target+`"`, 1)), 0o644)
		if _, errOut, code := runCLI(t, "flow", "import", bad, o); code != 1 || !strings.Contains(errOut, "nothing was imported") {
			t.Errorf("a bundle linking %s: exit %d %s", target, code, errOut)
		}
	}
	if after, _ := os.ReadDir(filepath.Join(other, ".dossier", "flows")); len(after) != len(flows) {
		t.Errorf("a refused import left a flow behind: %d -> %d", len(flows), len(after))
	}
}

// TestCostBeforeSending: status gives what sending the context would
// cost where the model's price is known, and nothing (not a guess) where
// it is not.
func TestCostBeforeSending(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "parser/parse.go", r)
	out := must(t, "evidence", "status", r)
	m := regexp.MustCompile(`\((\d+) tokens, o200k_base\)\n.*\n  Cost to send: ~\$(0\.\d{4}) of input to gpt-4o \(\$2\.50 per million input tokens`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("status lacks the cost:\n%s", out)
	}
	if tokens, _ := strconv.Atoi(m[1]); fmt.Sprintf("%.4f", float64(tokens)*2.5/1e6) != m[2] {
		t.Errorf("cost %s for %s tokens at $2.50/M", m[2], m[1])
	}
	must(t, "flow", "set", "model", "llama3.1", r)
	if out := must(t, "evidence", "status", r); strings.Contains(out, "Cost to send") {
		t.Errorf("a cost for a model without a known price:\n%s", out)
	}
}

// TestSymbolOfSeveralTypes: a method name that several types define is
// refused with the choices, not taken as every line between them.
func TestSymbolOfSeveralTypes(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	os.WriteFile(filepath.Join(root, "render", "kinds.go"), []byte("package render\n\ntype A struct{}\n\nfunc (A) Run() int {\n\treturn 1\n}\n\nfunc other() {}\n\ntype B struct{}\n\nfunc (B) Run() int {\n\treturn 2\n}\n"), 0o644)
	for _, indexed := range []bool{false, true} {
		if indexed {
			must(t, "index", r)
		}
		_, errOut, code := runCLI(t, "evidence", "add", "render/kinds.go::@Run", r)
		if code != 1 || !strings.Contains(errOut, "@Run names 2 symbols in render/kinds.go; pick one:\n  render/kinds.go::@A.Run (line 5)\n  render/kinds.go::@B.Run (line 13)") {
			t.Errorf("indexed %v: a name of two methods: exit %d %s", indexed, code, errOut)
		}
	}
	must(t, "evidence", "add", "render/kinds.go::@B.Run", r)
	if p := partText(t, root, "100"); !strings.Contains(p, "span=lines=13:15") || strings.Contains(p, "other") {
		t.Errorf("B.Run:\n%s", p)
	}
}
