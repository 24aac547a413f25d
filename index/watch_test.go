package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dossierhq/dossier/store"
	"github.com/fsnotify/fsnotify"
)

func TestUpdatePaths(t *testing.T) {
	root := fixture(t)
	run(t, root)
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	ctx := context.Background()

	write(t, root, "cart/extra.go", "package cart\n\nfunc Extra() {}\n")
	write(t, root, "py/pricing.py", "def cheaper(x):\n    return x - 1\n")
	os.Remove(filepath.Join(root, "README.md"))
	sum, err := ix.Update(ctx, []string{"cart/extra.go", "py/pricing.py", "README.md", "bin.dat"})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Indexed != 2 || sum.Removed != 1 || sum.Skipped["binary"] != 1 {
		t.Errorf("update: indexed %d removed %d skipped %v", sum.Indexed, sum.Removed, sum.Skipped)
	}
	checkDB(t, root)
	ix.Close()
	full := run(t, root)
	if full.Indexed != 0 || full.Files != sum.Files || full.Chunks != sum.Chunks {
		t.Errorf("totals drifted: update says %d files/%d chunks, a full run %d/%d (indexed %d)",
			sum.Files, sum.Chunks, full.Files, full.Chunks, full.Indexed)
	}
	// A removed directory takes its files with it.
	if ix, err = Open(Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "web"))
	sum, err = ix.Update(ctx, []string{"web"})
	if err != nil || sum.Removed != 4 {
		t.Errorf("directory removal: removed %d, err %v", sum.Removed, err)
	}
}

func TestWatch(t *testing.T) {
	old := WatchInterval
	WatchInterval = 50 * time.Millisecond
	defer func() { WatchInterval = old }()

	root := fixture(t)
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A file written after the last run and before the watch starts is
	// taken in by the watch's catch-up run.
	write(t, root, "cart/between.go", "package cart\n\nfunc Between() {}\n")
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var reports []Summary
	done := make(chan error)
	ready := make(chan struct{})
	go func() {
		done <- ix.Watch(ctx, func(s Summary, err error) {
			if err != nil {
				t.Errorf("watch: %v", err)
			}
			mu.Lock()
			reports = append(reports, s)
			mu.Unlock()
		}, func() { close(ready) })
	}()
	<-ready // from here on no change is missed
	waitIndexed(t, root, "a file written before the watch", func(tx *store.Tx) bool { return len(symbols(tx, "between")) == 1 })
	write(t, root, "cart/new.go", "package cart\n\nfunc Fresh() {}\n")
	waitIndexed(t, root, "a new file", func(tx *store.Tx) bool { return len(symbols(tx, "fresh")) == 1 })
	write(t, root, "newdir/sub/deep.py", "def deep():\n    pass\n")
	waitIndexed(t, root, "a file in a new directory", func(tx *store.Tx) bool { return len(symbols(tx, "deep")) == 1 })
	os.Remove(filepath.Join(root, "cart/new.go"))
	waitIndexed(t, root, "a deletion", func(tx *store.Tx) bool { return len(symbols(tx, "fresh")) == 0 })

	// The index's own writes must not feed the watcher: with nothing
	// changing, no more batches arrive.
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	n := len(reports)
	mu.Unlock()
	time.Sleep(500 * time.Millisecond)
	mu.Lock()
	if len(reports) != n {
		t.Errorf("watch kept re-indexing with nothing changing: %d batches, then %d", n, len(reports))
	}
	mu.Unlock()
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("watch did not stop on cancel")
	}
}

// TestWatchOverflowRunsInFull: events lost to a full kernel queue
// (fsnotify.ErrEventOverflow) are made up for by a full run, so a file
// whose event was lost is indexed anyway; other watcher errors are only
// reported.
func TestWatchOverflowRunsInFull(t *testing.T) {
	root := fixture(t)
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ctx := context.Background()
	if _, err := ix.Run(ctx); err != nil {
		t.Fatal(err)
	}
	write(t, root, "cart/lost.go", "package cart\n\nfunc Lost() {}\n") // its event was lost
	var reports []Summary
	report := func(s Summary, err error) {
		if err != nil {
			t.Errorf("report: %v", err)
		}
		reports = append(reports, s)
	}
	ran := ix.watchError(ctx, fmt.Errorf("read: %w", fsnotify.ErrEventOverflow), report)
	if !ran || len(reports) != 1 || reports[0].Indexed != 1 {
		t.Fatalf("ran in full %v, reports %+v", ran, reports)
	}
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.View(func(tx *store.Tx) error {
		if len(symbols(tx, "lost")) != 1 {
			t.Error("the file whose event was lost is not indexed")
		}
		return nil
	})
	// Any other error is reported and changes nothing.
	var got error
	ran = ix.watchError(ctx, errors.New("boom"), func(_ Summary, err error) { got = err })
	if got == nil || !strings.Contains(got.Error(), "boom") || ran {
		t.Errorf("other error: %v, ran in full %v", got, ran)
	}
}

// TestWatchWritesALoneChangeWhenQuiet: a change nothing follows is written
// once the tree is quiet, not when the batch interval runs out (5 s): an
// agent searches `dossier mcp` for a file right after writing it. The
// interval only bounds how long a burst of changes is held.
func TestWatchWritesALoneChangeWhenQuiet(t *testing.T) {
	defer func(d time.Duration) { WatchInterval = d }(WatchInterval)
	WatchInterval = time.Hour
	root := fixture(t)
	defer watchIndexed(t, root)()
	write(t, root, "cart/lone.go", "package cart\n\nfunc Lone() {}\n")
	waitIndexed(t, root, "a new file", func(tx *store.Tx) bool { return len(symbols(tx, "lone")) == 1 })
	write(t, root, "fresh/sub/deep.py", "def deeper():\n    pass\n")
	waitIndexed(t, root, "a file in a new directory", func(tx *store.Tx) bool { return len(symbols(tx, "deeper")) == 1 })
	// An editor's save: a temporary file renamed over the name.
	write(t, root, "cart/.saved.go.tmp", "package cart\n\nfunc Saved() {}\n")
	if err := os.Rename(filepath.Join(root, "cart/.saved.go.tmp"), filepath.Join(root, "cart/saved.go")); err != nil {
		t.Fatal(err)
	}
	waitIndexed(t, root, "a file renamed into place", func(tx *store.Tx) bool { return len(symbols(tx, "saved")) == 1 })
	write(t, root, "cart/lone.go", "package cart\n\nfunc Lonely() {}\n")
	waitIndexed(t, root, "a changed file", func(tx *store.Tx) bool { return len(symbols(tx, "lonely")) == 1 })
}

// TestWatchBoundsABurst: while changes keep coming (here the quiet never
// comes), a batch is still written WatchInterval after its first change.
func TestWatchBoundsABurst(t *testing.T) {
	defer func(q, d time.Duration) { WatchQuiet, WatchInterval = q, d }(WatchQuiet, WatchInterval)
	WatchQuiet, WatchInterval = time.Hour, 50*time.Millisecond
	root := fixture(t)
	defer watchIndexed(t, root)()
	write(t, root, "cart/burst.go", "package cart\n\nfunc Burst() {}\n")
	waitIndexed(t, root, "a change in a burst", func(tx *store.Tx) bool { return len(symbols(tx, "burst")) == 1 })
}

// watchIndexed indexes root and watches it (startWatch) until the
// returned stop is called.
func watchIndexed(t *testing.T, root string) (stop func()) {
	t.Helper()
	ix, err := Open(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Run(context.Background()); err != nil {
		ix.Close()
		t.Fatal(err)
	}
	stopWatch := startWatch(t, ix)
	return func() {
		stopWatch()
		ix.Close()
	}
}

// startWatch runs ix.Watch until the returned stop is called; it returns
// once the watch is ready, and fails the test on a batch's error.
func startWatch(t *testing.T, ix *Indexer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		done <- ix.Watch(ctx, func(_ Summary, err error) {
			if err != nil {
				t.Errorf("watch: %v", err)
			}
		}, func() { close(ready) })
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("watch stopped before it was ready: %v", err)
	}
	return func() {
		cancel()
		<-done
	}
}

// waitIndexed waits until cond holds in the index at root, failing the
// test if it does not within a minute (a bound for a stalled machine, not
// a measure of speed).
func waitIndexed(t *testing.T, root, what string, cond func(tx *store.Tx) bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		ok := false
		if db, err := store.Open(store.Path(root), store.Options{ReadOnly: true, Timeout: 100 * time.Millisecond}); err == nil {
			db.View(func(tx *store.Tx) error { ok = cond(tx); return nil })
			db.Close()
		}
		if ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("watch never indexed: %s", what)
}
