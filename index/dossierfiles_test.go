package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/store"
)

// answer is a kept answer as `dossier send` writes it.
const answer = "<!-- turn=1; time=2026-03-01T08:00:00Z; model=gpt-4o-mini; api=responses; status=completed -->\n\n" +
	"InvoiceController.store now rounds totals to cents.\n"

const request = `{"input":[{"role":"user","content":[{"type":"input_text","text":"[MODE: fix]\n[INSTRUCTION]\nWhy are invoice totals off by a cent?\n"}]}]}`

// answerChunk is the indexed record of a flow's first answer, if any.
func answerChunk(t *testing.T, root, flow string) (store.Chunk, bool) {
	t.Helper()
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var found store.Chunk
	ok := false
	err = db.View(func(tx *store.Tx) error {
		f, has, err := tx.File(".dossier/flows/" + flow + "/turns/001.answer.md")
		if err != nil || !has || len(f.Chunks) == 0 {
			return err
		}
		found, ok, err = tx.Chunk(f.Chunks[0])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found, ok
}

func TestWatchTakesInKeptAnswers(t *testing.T) {
	old := WatchInterval
	WatchInterval = 50 * time.Millisecond
	defer func() { WatchInterval = old }()

	root := fixture(t)
	ix, err := Open(Options{Root: root, RunSummaries: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- ix.Watch(ctx, func(Summary, error) {}, func() { close(ready) }) }()
	<-ready

	// A flow made while watching, then its first turn.
	write(t, root, ".dossier/flows/fix-1/flow.json", `{"version":1,"id":"fix-1","name":"fix totals"}`)
	write(t, root, ".dossier/flows/fix-1/turns/001.request.json", request)
	write(t, root, ".dossier/flows/fix-1/turns/001.answer.md", answer)
	c, ok := waitFor(ctx, func() (store.Chunk, bool) { return answerChunk(t, root, "fix-1") }, true)
	if !ok {
		t.Fatal("the watcher never indexed the kept answer")
	}
	if c.SourceType != lang.SrcRunSummary {
		t.Errorf("source type %q, want run_summary", c.SourceType)
	}
	for _, want := range []string{"flow: fix totals (fix-1)", "request: Why are invoice totals off by a cent?", "model: gpt-4o-mini", "date: 2026-03-01T08:00:00Z"} {
		if !strings.Contains(c.Finder, want) {
			t.Errorf("finder lacks %q:\n%s", want, c.Finder)
		}
	}
	// The flow removed takes its answer out.
	os.RemoveAll(filepath.Join(root, ".dossier", "flows", "fix-1"))
	if _, still := waitFor(ctx, func() (store.Chunk, bool) { return answerChunk(t, root, "fix-1") }, false); still {
		t.Error("the removed flow's answer is still indexed")
	}
	cancel()
	<-done
}

// waitFor polls get until its second result is want or ctx ends.
func waitFor(ctx context.Context, get func() (store.Chunk, bool), want bool) (store.Chunk, bool) {
	for {
		c, ok := get()
		if ok == want || ctx.Err() != nil {
			return c, ok
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHistoryFromRecordsOnlyWhenIndexed: a run with an unchanged HEAD
// takes the history files from the index's records, but only when the
// last finished run indexed that history; files a cut-short run wrote
// are walked and indexed.
func TestHistoryFromRecordsOnlyWhenIndexed(t *testing.T) {
	root := t.TempDir()
	git := gitIn(t, root)
	git("init", "-q")
	write(t, root, "a.go", "package a\n\nfunc A() {}\n")
	git("add", "-A")
	git("commit", "-q", "-m", "First")
	opts := func(o *Options) { o.HistoryDepth, o.HistoryCommits = 5, 100 }
	run(t, root, opts)
	if sum := run(t, root, opts); sum.Indexed != 0 || sum.Removed != 0 || sum.HistoryMark == "" {
		t.Fatalf("a run with nothing new: indexed %d, removed %d, mark %q", sum.Indexed, sum.Removed, sum.HistoryMark)
	}
	// A run cut short after its sync wrote the new commit's history.
	write(t, root, "a.go", "package a\n\nfunc A() { println() }\n")
	git("commit", "-q", "-am", "Second")
	if _, err := history.Sync(context.Background(), history.Options{Root: root, Head: repoInfo(root).Commit, Depth: 5, Window: 100}); err != nil {
		t.Fatal(err)
	}
	run(t, root, opts)
	historyOf := func(want ...string) {
		t.Helper()
		db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		err = db.View(func(tx *store.Tx) error {
			chunks, err := tx.FileChunks(history.File("a.go"))
			var got []string
			for _, c := range chunks {
				got = append(got, c.Symbol)
			}
			if len(got) != len(want) {
				t.Errorf("a.go's history holds %q, want %q", got, want)
			}
			for i := range min(len(got), len(want)) {
				if !strings.HasSuffix(got[i], " "+want[i]) {
					t.Errorf("a.go's history holds %q, want %q", got, want)
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	historyOf("Second", "First")
	// A detached HEAD at the first commit: history as of that commit.
	git("checkout", "-q", "--detach", "HEAD~1")
	run(t, root, opts)
	historyOf("First")
}
