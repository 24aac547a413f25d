package mcp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvidenceAddDiff: evidence_add takes git:diff, the working tree's
// change, through the same engine as the CLI; an empty diff is a tool
// error that says so.
func TestEvidenceAddDiff(t *testing.T) {
	root := testWorkspace(t)
	for _, args := range [][]string{{"init", "-q"}, {"add", "calc"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "one"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	indexWorkspace(t, root)
	_, cs := connect(t, root, false)
	ok(t, cs, "flow_new", map[string]any{"name": "review", "request": "Review my change"})
	fails(t, cs, "evidence_add", map[string]any{"selector": "git:diff"}, "empty diff")
	p := filepath.Join(root, "calc", "calc.go")
	raw, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(raw), "n > 100", "n >= 100", 1)), 0o644)
	if text, _ := ok(t, cs, "evidence_add", map[string]any{"selector": "git:diff"}); !strings.Contains(text, "git_diff") {
		t.Errorf("evidence_add git:diff: %s", text)
	}
	if text, _ := ok(t, cs, "assemble", nil); !strings.Contains(text, "+\tif n >= 100 {") {
		t.Errorf("the prompt lacks the diff:\n%s", text)
	}
}
