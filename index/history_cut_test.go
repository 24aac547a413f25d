package index

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/store"
)

// TestHistoryAfterACutRun: a run whose settings changed the history depth is cut short after its
// sync (same HEAD): the next run must index the re-rendered history.
func TestHistoryAfterACutRun(t *testing.T) {
	root := t.TempDir()
	git := gitIn(t, root)
	git("init", "-q")
	write(t, root, "a.go", "package a\n\nfunc A() {}\n")
	git("add", "-A")
	git("commit", "-q", "-m", "First")
	write(t, root, "a.go", "package a\n\nfunc A() { println() }\n")
	git("commit", "-q", "-am", "Second")
	run(t, root, func(o *Options) { o.HistoryDepth, o.HistoryCommits = 1, 100 })
	// the cut-short run with depth 2: its sync only
	if _, err := history.Sync(context.Background(), history.Options{Root: root, Head: repoInfo(root).Commit, Depth: 2, Window: 100}); err != nil {
		t.Fatal(err)
	}
	run(t, root, func(o *Options) { o.HistoryDepth, o.HistoryCommits = 2, 100 })
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(tx *store.Tx) error {
		chunks, _ := tx.FileChunks(history.File("a.go"))
		var got []string
		for _, c := range chunks {
			got = append(got, c.Symbol)
		}
		disk, _ := os.ReadFile(root + "/" + history.File("a.go"))
		if len(got) != 2 {
			t.Errorf("index holds %q; on disk the file has %d sections", got, strings.Count(string(disk), "\n## ")+1)
		}
		return nil
	})
}
