package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// diffWorkspace is flowWorkspace committed as a git repository (its
// .dossier directory too, which no diff may show).
func diffWorkspace(t *testing.T) string {
	t.Helper()
	root := flowWorkspace(t)
	gitRun(t, root, "init", "-q")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-qm", "one")
	return root
}

// gitHead is the commit id rev names in root.
func gitHead(t *testing.T, root, rev string) string {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "rev-parse", rev).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// replaceIn edits a file of root: old becomes new, once; old must be there.
func replaceIn(t *testing.T, root, rel, old, new string) {
	t.Helper()
	edit(t, root, rel, func(s string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("%s holds no %q", rel, old)
		}
		return strings.Replace(s, old, new, 1)
	})
}

// TestDiffEvidence: git:diff adds the working tree's change as a diff
// part, with its selector and commit as provenance, counted like any part;
// an empty diff is an error, and adding it twice is refused.
func TestDiffEvidence(t *testing.T) {
	root := diffWorkspace(t)
	r := "--root=" + root
	if _, errOut, code := runCLI(t, "evidence", "add", "git:diff", r); code == 0 || !strings.Contains(errOut, "git:diff is an empty diff") || !strings.Contains(errOut, "untracked files are not in it") {
		t.Errorf("empty diff: exit %d %s", code, errOut)
	}
	replaceIn(t, root, "parser/parse.go", `return s + "!"`, `return s + "?"`)
	out := must(t, "evidence", "add", "git:diff", r)
	if !strings.Contains(out, "100_git_diff.evidence.md") {
		t.Errorf("add:\n%s", out)
	}
	part := partText(t, root, "100_git_diff")
	for _, want := range []string{"## Evidence: git:diff\n", "source_uri=git:diff;", "commit=" + gitHead(t, root, "HEAD"),
		"```diff\ndiff --git a/parser/parse.go b/parser/parse.go\n", "-\treturn s + \"!\"\n+\treturn s + \"?\"\n"} {
		if !strings.Contains(part, want) {
			t.Errorf("the part lacks %q:\n%s", want, part)
		}
	}
	if strings.Contains(part, ".dossier") {
		t.Errorf("the diff shows dossier's own files:\n%s", part)
	}
	var st struct {
		Parts []struct {
			ID, Source string
			Tokens     int
		}
	}
	if err := json.Unmarshal([]byte(must(t, "evidence", "status", "--json", r)), &st); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range st.Parts {
		if p.ID == "100_git_diff" {
			found = p.Source == "git:diff" && p.Tokens > 20
		}
	}
	if !found {
		t.Errorf("status does not count the diff part: %+v", st.Parts)
	}
	if _, errOut, code := runCLI(t, "evidence", "add", "git:diff", r); code == 0 || !strings.Contains(errOut, "already in the flow as 100_git_diff") {
		t.Errorf("a second git:diff: exit %d %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "evidence", "add", "git:nosuchbranch", r); code == 0 || !strings.Contains(errOut, `no commit "nosuchbranch"`) {
		t.Errorf("an unknown revision: exit %d %s", code, errOut)
	}
}

// TestDiffEvidenceOutsideGit: a workspace in no repository has no diff,
// and says so rather than that HEAD has no commit.
func TestDiffEvidenceOutsideGit(t *testing.T) {
	t.Setenv("GIT_CEILING_DIRECTORIES", os.TempDir())
	root := flowWorkspace(t)
	for _, sel := range []string{"git:diff", "git:HEAD~1..HEAD"} {
		if _, errOut, code := runCLI(t, "evidence", "add", sel, "--root="+root); code == 0 || !strings.Contains(errOut, "is not in a git repository") {
			t.Errorf("%s outside git: exit %d %s", sel, code, errOut)
		}
	}
}

// TestDiffEvidenceOfCommits: git:staged is what is staged alone, git:REV
// one commit's change, git:A..B the change between two commits; each
// records the commit it is of.
func TestDiffEvidenceOfCommits(t *testing.T) {
	root := diffWorkspace(t)
	r := "--root=" + root
	replaceIn(t, root, "render/render.go", `"<" + tree`, `"[" + tree`)
	gitRun(t, root, "commit", "-qam", "two")
	replaceIn(t, root, "parser/parse.go", `return s + "!"`, `return s + "?"`)
	gitRun(t, root, "commit", "-qam", "three")
	two, three := gitHead(t, root, "HEAD~1"), gitHead(t, root, "HEAD")
	replaceIn(t, root, "render/render.go", `tree + ">"`, `tree + "]"`)
	gitRun(t, root, "add", "render/render.go")
	replaceIn(t, root, "parser/parse.go", `ErrSyntax = errors.New("syntax error")`, `ErrSyntax = errors.New("bad syntax")`)

	must(t, "evidence", "add", "git:staged", "git:"+two[:10], "git:HEAD~2..HEAD", r)
	for _, c := range []struct {
		id, commit string
		want, not  []string
	}{
		{"100_git_staged", three, []string{`+	return "[" + tree + "]"`}, []string{"parse.go"}},
		{"110_git_" + two[:10], two, []string{`-	return "<" + tree + ">"`, `+	return "[" + tree + ">"`}, []string{"parse.go"}},
		{"120_git_head_2_head", three, []string{"b/render/render.go", `+	return s + "?"`}, []string{"bad syntax"}},
	} {
		part := partText(t, root, c.id)
		if !strings.Contains(part, "commit="+c.commit) {
			t.Errorf("%s does not record commit %s:\n%s", c.id, c.commit, part)
		}
		for _, w := range c.want {
			if !strings.Contains(part, w) {
				t.Errorf("%s lacks %q:\n%s", c.id, w, part)
			}
		}
		for _, n := range c.not {
			if strings.Contains(part, n) {
				t.Errorf("%s holds %q:\n%s", c.id, n, part)
			}
		}
	}
}

// TestDiffEvidenceRefresh: after another edit, status marks a git:diff
// part changed, refresh takes the diff again, and a diff that became empty
// leaves the part as it was, reported lost.
func TestDiffEvidenceRefresh(t *testing.T) {
	root := diffWorkspace(t)
	r := "--root=" + root
	replaceIn(t, root, "parser/parse.go", `return s + "!"`, `return s + "?"`)
	must(t, "evidence", "add", "git:diff", r)
	if s := statesOf(t, root, "100_git_diff"); s != "active" {
		t.Errorf("a fresh diff part is %s", s)
	}
	replaceIn(t, root, "render/render.go", `"<" + tree`, `"[" + tree`)
	if s := statesOf(t, root, "100_git_diff"); !strings.Contains(s, "changed") {
		t.Errorf("after another edit the diff part is %s, not changed", s)
	}
	if out := must(t, "flow", "diff", r); !strings.Contains(out, "changed  100_git_diff") {
		t.Errorf("flow diff:\n%s", out)
	}
	out := must(t, "evidence", "refresh", r)
	if !strings.Contains(out, "✓ changed  100_git_diff") {
		t.Errorf("refresh:\n%s", out)
	}
	part := partText(t, root, "100_git_diff")
	if !strings.Contains(part, `+	return "[" + tree + ">"`) || !strings.Contains(part, `+	return s + "?"`) {
		t.Errorf("the refreshed part lacks an edit:\n%s", part)
	}
	if s := statesOf(t, root, "100_git_diff"); s != "active" {
		t.Errorf("after refresh the diff part is %s", s)
	}
	gitRun(t, root, "checkout", "-q", "--", "parser", "render")
	_, errOut, code := runCLI(t, "evidence", "refresh", r)
	if code == 0 || !strings.Contains(errOut, "100_git_diff") {
		t.Errorf("refresh of an empty diff: exit %d %s", code, errOut)
	}
	if partText(t, root, "100_git_diff") != part {
		t.Errorf("an empty diff changed the part")
	}
}

// TestDiffEvidenceRedactsSecrets: a private key and an access key added in
// the working tree, and a new env file, leave the assembled prompt as
// markers, every line of the key (each led by '+' in the diff) too.
func TestDiffEvidenceRedactsSecrets(t *testing.T) {
	root := diffWorkspace(t)
	r := "--root=" + root
	f, err := os.OpenFile(filepath.Join(root, "render", "render.go"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\nconst pem = `" + secrettest.PEM + "`\n\nvar key = \"" + secrettest.AWSKey + "\"\n")
	f.Close()
	writeFile(t, root, ".env.production", "DB_PASSWORD=Sup3rS3cretPassw0rd\n")
	gitRun(t, root, "add", "-N", ".env.production")
	must(t, "evidence", "add", "git:diff", r)
	stdout, stderr, code := runCLI(t, "assemble", r)
	if code != 0 {
		t.Fatal(stderr)
	}
	noSecret(t, "assemble of a diff", stdout)
	for _, line := range append(strings.Split(secrettest.PEM, "\n"), "Sup3rS3cretPassw0rd") {
		if len(line) > 12 && !strings.HasPrefix(line, "-----") && strings.Contains(stdout, line) {
			t.Errorf("a line of a secret leaves: %q\n%s", line, stdout)
		}
	}
	if !strings.Contains(stdout, "[REDACTED:private-key]") || !strings.Contains(stdout, "```diff") {
		t.Errorf("no marker in the fenced diff:\n%s", stdout)
	}
}

// TestGatherChanges: gather changes adds the working tree's diff, the
// function it touches whole, and that function's test; a function the
// diff leaves alone stays out.
func TestGatherChanges(t *testing.T) {
	root := diffWorkspace(t)
	r := "--root=" + root
	if _, errOut, code := runCLI(t, "evidence", "gather", "changes", r); code == 0 || !strings.Contains(errOut, "empty diff") {
		t.Errorf("gather changes of a clean tree: exit %d %s", code, errOut)
	}
	replaceIn(t, root, "parser/parse.go", `if src == "" {`, `if len(src) == 0 {`)
	out := must(t, "evidence", "gather", "changes", r)
	for _, want := range []string{"100_git_diff", "parse_go_parse", "changed", "parse_test_go_testparse", "test"} {
		if !strings.Contains(out, want) {
			t.Errorf("gather changes lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "normalize") || strings.Contains(out, "render") {
		t.Errorf("gather changes took what the diff leaves alone:\n%s", out)
	}
	if p := partText(t, root, "110_parse_go_parse"); !strings.Contains(p, "symbol=Parse") || !strings.Contains(p, "func Parse(src string) (string, error) {") {
		t.Errorf("the changed function is not whole:\n%s", p)
	}
}

// TestDiffEvidenceRedactsAKeyItCuts: a change to one line in the middle
// of a committed private key gives a hunk with no BEGIN line, each line
// led by '-' or '+'; the old line and the new are redacted all the same,
// in the working tree's diff and in the commit's.
func TestDiffEvidenceRedactsAKeyItCuts(t *testing.T) {
	root := diffWorkspace(t)
	r := "--root=" + root
	writeFile(t, root, "deploy/tls.go", secrettest.TLSGoFile())
	gitRun(t, root, "add", "deploy/tls.go")
	gitRun(t, root, "commit", "-qm", "key")
	old := strings.Split(secrettest.TLSPEM, "\n")[13]
	rotated := strings.ToLower(old[:32]) + old[32:]
	replaceIn(t, root, "deploy/tls.go", old, rotated)
	must(t, "evidence", "add", "git:diff", r)
	if p := partText(t, root, "100_git_diff"); !strings.Contains(p, "+"+rotated) || strings.Contains(p, "BEGIN") {
		t.Fatalf("the diff is not a hunk inside the key:\n%s", p)
	}
	gitRun(t, root, "commit", "-qam", "rotate")
	must(t, "evidence", "add", "git:HEAD", r)
	stdout, stderr, code := runCLI(t, "assemble", r)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, cut := range []string{old[:20], old[44:], rotated[:20], strings.Split(secrettest.TLSPEM, "\n")[12][:20]} {
		if strings.Contains(stdout, cut) {
			t.Errorf("a piece of the key leaves (%q):\n%s", cut, stdout)
		}
	}
	if n := strings.Count(stdout, "[REDACTED:private-key]"); n < 2*7 {
		t.Errorf("%d markers for two hunks of seven key lines:\n%s", n, stdout)
	}
}
