package index

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/store"
)

// gitIn returns a runner of the git CLI in root, with fixed identities
// and no user or system configuration; it skips the test without git.
func gitIn(t *testing.T, root string) func(args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: file_change chunks need the git CLI")
	}
	return func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=A", "GIT_AUTHOR_EMAIL=a@x",
			"GIT_COMMITTER_NAME=A", "GIT_COMMITTER_EMAIL=a@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestHistoryLimits proves the index's size cap reaches the history: a
// file with a version over it gets no changed symbols read from git, the
// others do; and that a file name too long to take ".md" has its history
// indexed, with no error, and the next run has nothing to do (issue 30:
// every run failed to write it and read the whole history again).
func TestHistoryLimits(t *testing.T) {
	root := t.TempDir()
	git := gitIn(t, root)
	git("init", "-q")
	long := strings.Repeat("n", 252) + ".go"
	write(t, root, long, "package a\n\nfunc Long() {}\n")
	write(t, root, "big.go", "package a\n\nfunc Big() {}\n"+strings.Repeat("// padding\n", 10000))
	write(t, root, "small.go", "package a\n\nfunc Small() {}\n")
	git("add", "-A")
	git("commit", "-q", "-m", "First")
	opts := func(o *Options) { o.HistoryDepth, o.HistoryCommits, o.MaxFileSize = 5, 100, 64<<10 }
	if sum := run(t, root, opts); len(sum.Errors) != 0 || sum.Skipped["too_large"] != 1 {
		t.Fatalf("errors %q, skipped %v", sum.Errors, sum.Skipped)
	}
	read := func(src string) string {
		data, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(history.File(src))))
		return string(data)
	}
	if h := read("big.go"); !strings.Contains(h, "First") || strings.Contains(h, "- changed:") {
		t.Errorf("big.go's history:\n%s", h)
	}
	if h := read("small.go"); !strings.Contains(h, "- changed: Small") {
		t.Errorf("small.go's history:\n%s", h)
	}
	view(t, root, func(tx *store.Tx) {
		chunks, err := tx.FileChunks(history.File(long))
		if err != nil || len(chunks) != 1 || !strings.Contains(chunks[0].Finder, long) {
			t.Errorf("the long name's history in the index: %+v, %v", chunks, err)
		}
	})
	if sum := run(t, root, opts); len(sum.Errors) != 0 || sum.Indexed != 0 || sum.Notes["history_commits_read"] != 0 {
		t.Errorf("the next run: errors %q, indexed %d, notes %v", sum.Errors, sum.Indexed, sum.Notes)
	}
}
