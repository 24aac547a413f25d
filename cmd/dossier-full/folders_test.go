package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// folderWorkspace is flowWorkspace with src/algo/: seven Go files, a test,
// a binary file, a credential file and a file .gitignore leaves out.
func folderWorkspace(t *testing.T) string {
	t.Helper()
	root := flowWorkspace(t)
	write := func(rel, text string) { writeFile(t, root, rel, text) }
	for i := 1; i <= 7; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package algo\n\n")
		for f := 0; f < 3*i; f++ {
			fmt.Fprintf(&b, "// Step%d_%d moves the search one step.\nfunc Step%d_%d(x int) int {\n\ty := x * %d\n\tif y > 100 {\n\t\treturn y - 100\n\t}\n\treturn y + %d\n}\n\n", i, f, i, f, f, i)
		}
		write(fmt.Sprintf("src/algo/step%d.go", i), b.String())
	}
	write("src/algo/step_test.go", "package algo\n\nimport \"testing\"\n\nfunc TestStep(t *testing.T) {}\n")
	write("src/algo/logo.bin", "\x00\x01\x02\x03 not text")
	write("src/algo/.env", "API_TOKEN=not-a-real-one\n")
	write("src/algo/generated.go", "package algo\n\nvar Table = 1\n")
	write(".gitignore", "src/algo/generated.go\n")
	return root
}

// previewTokens reads "  PATH   N tokens" lines of an add preview.
func previewTokens(t *testing.T, out string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^  (\S+/\S+)\s+(\d+) tokens`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		got[m[1]] = n
	}
	return got
}

// partState is a part as `evidence status --json` gives it.
type partState struct {
	Tokens int
	States string // space-separated: "active outline"
}

// statusParts is `evidence status --json`'s parts by source label.
func statusParts(t *testing.T, root string) map[string]partState {
	t.Helper()
	var st struct {
		Parts []struct {
			Source string   `json:"source"`
			Tokens int      `json:"tokens"`
			States []string `json:"states"`
		} `json:"parts"`
	}
	out := must(t, "evidence", "status", "--json", "--root="+root)
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	got := map[string]partState{}
	for _, p := range st.Parts {
		got[p.Source] = partState{p.Tokens, strings.Join(p.States, " ")}
	}
	return got
}

// A folder with an exclusion is previewed (tokens per file, the total
// against the budget, what is skipped and why) and, with no terminal and
// no --yes, refused with nothing written; --yes adds exactly the files the
// preview listed, each at the tokens it showed.
func TestEvidenceAddFolderPreviewsAndAsks(t *testing.T) {
	root := folderWorkspace(t)
	r := "--root=" + root
	before := tree(t, flowDir(t, root))
	out, errOut, code := runCLI(t, "evidence", "add", "src/algo/", "!**/*_test.go", r)
	if code == 0 || !strings.Contains(errOut, "pass --yes") {
		t.Fatalf("a script adding 7 files without --yes: exit %d\n%s%s", code, out, errOut)
	}
	if got := tree(t, flowDir(t, root)); got != before {
		t.Errorf("the refused add changed the flow:\n%s", got)
	}
	preview := previewTokens(t, out)
	for i := 1; i <= 7; i++ {
		if preview[fmt.Sprintf("src/algo/step%d.go", i)] == 0 {
			t.Errorf("preview lacks step%d.go with its tokens:\n%s", i, out)
		}
	}
	if len(preview) != 7 {
		t.Errorf("preview lists %d files, want the 7 step files:\n%s", len(preview), out)
	}
	for _, want := range []string{"7 files to add", "Total:", "-token budget", "Adding: full text",
		"skipped src/algo/.env: secret_file", "skipped src/algo/logo.bin: is a binary file", "1 ignored by .gitignore"} {
		if !strings.Contains(out, want) {
			t.Errorf("preview lacks %q:\n%s", want, out)
		}
	}

	out = must(t, "evidence", "add", "src/algo/", "!**/*_test.go", "--yes", r)
	parts := statusParts(t, root)
	for path, n := range preview {
		if parts[path].Tokens != n {
			t.Errorf("%s: preview said %d tokens, status says %d", path, n, parts[path].Tokens)
		}
	}
	for _, left := range []string{"src/algo/step_test.go", "src/algo/.env", "src/algo/logo.bin", "src/algo/generated.go"} {
		if _, ok := parts[left]; ok {
			t.Errorf("%s was added:\n%s", left, out)
		}
	}
	if !strings.Contains(out, "skipped src/algo/.env: secret_file") {
		t.Errorf("--yes does not list what it skipped:\n%s", out)
	}

	// A glob of a handful adds without asking; '!' applies to it too.
	out = must(t, "evidence", "add", "parser/**/*.go", "!*_test.go", r)
	parts = statusParts(t, root)
	if _, ok := parts["parser/parse.go"]; !ok {
		t.Errorf("glob did not add parser/parse.go:\n%s", out)
	}
	if _, ok := parts["parser/parse_test.go"]; ok {
		t.Errorf("'!*_test.go' did not leave out parser/parse_test.go:\n%s", out)
	}
	if _, errOut, code := runCLI(t, "evidence", "add", "nowhere/**/*.go", r); code == 0 || !strings.Contains(errOut, "no file matches nowhere/**/*.go") {
		t.Errorf("a glob matching nothing: exit %d %s", code, errOut)
	}
}

// A set over the budget: the preview says so and prices the outlines;
// --outline adds them as outlines (as `evidence fit` degrades parts),
// which `evidence fit off` restores.
func TestEvidenceAddFolderOutlineWhenOverBudget(t *testing.T) {
	root := folderWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "budget", "set", "1500", r)
	out, _, code := runCLI(t, "evidence", "add", "src/algo/", r)
	if code == 0 || !strings.Contains(out, "They do not fit") || !strings.Contains(out, "--outline") || !strings.Contains(out, "(outline ") {
		t.Fatalf("over-budget preview (exit %d):\n%s", code, out)
	}
	out, _, _ = runCLI(t, "evidence", "add", "src/algo/", "--outline", r)
	if !strings.Contains(out, "Adding: outlines (--outline)") {
		t.Errorf("the preview does not say it adds outlines:\n%s", out)
	}
	want := previewOutline(t, out)
	must(t, "evidence", "add", "src/algo/", "--outline", "--yes", r)
	parts := statusParts(t, root)
	for i := 1; i <= 7; i++ {
		p := parts[fmt.Sprintf("src/algo/step%d.go", i)]
		if !strings.Contains(p.States, "outline") || p.Tokens != want[fmt.Sprintf("src/algo/step%d.go", i)] {
			t.Errorf("step%d.go: states %q, %d tokens; want an outline of %d tokens", i, p.States, p.Tokens, want[fmt.Sprintf("src/algo/step%d.go", i)])
		}
	}
	must(t, "evidence", "fit", "off", r)
	if p := statusParts(t, root)["src/algo/step7.go"]; strings.Contains(p.States, "outline") {
		t.Errorf("fit off left step7.go an outline")
	}
}

// previewOutline reads the "(outline N)" column of an add preview.
func previewOutline(t *testing.T, out string) map[string]int {
	t.Helper()
	got := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^  (\S+)\s+\d+ tokens  \(outline (\d+)\)`).FindAllStringSubmatch(out, -1) {
		n, _ := strconv.Atoi(m[2])
		got[m[1]] = n
	}
	if len(got) == 0 {
		t.Fatalf("no outline column in the preview:\n%s", out)
	}
	return got
}

// On a real terminal `evidence add` of a folder shows the preview and
// asks; the answer typed there decides.
func TestEvidenceAddFolderAsksInTerminal(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	root := folderWorkspace(t)
	tm := startTmux(t, tmuxPath, root, t.TempDir(), "evidence", "add", "src/algo/", "!**/*_test.go")
	tm.waitFor("the question", 0, func(s *screen) bool { return strings.Contains(s.text, "Add these 7 files? [y/N]") })
	tm.literal("y")
	tm.keys("Enter")
	s := tm.waitFor("the add to finish", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	if !strings.Contains(s.text, exitMarker+"0.") || strings.Count(s.text, "✓ Added evidence") != 7 {
		t.Errorf("after answering y:\n%s", s)
	}
	if n := len(statusParts(t, root)); n != 8 { // the request and the 7 files
		t.Errorf("%d parts after answering y, want 8", n)
	}
}
