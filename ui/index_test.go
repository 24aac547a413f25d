package ui

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/index/search"
)

// indexReport is a report of the background index as Update gets it, its
// channel closed (no more to read).
func indexReport(msg indexMsg) indexMsg {
	ch := make(chan indexMsg)
	close(ch)
	msg.ch = ch
	return msg
}

// TestIndexReportsOnScreen: what the workbench shows of an index it keeps
// current. A batch's notice takes the status line only from the index's
// own earlier notice, never from the answer to the user's command; a
// batch's error always takes it, and the title says the index is behind
// until a batch is written again; another process holding the lock, or
// the watch stopping, is said in the title for as long as it lasts.
func TestIndexReportsOnScreen(t *testing.T) {
	m, _ := newTestModel(t, nil)
	title := func(m Model) string { return strings.SplitN(m.View(), "\n", 2)[0] }

	m = send(t, m, indexReport(indexMsg{kind: indexWaiting, text: "index in use by another dossier process (lock x held)"}))
	if !strings.Contains(title(m), "index kept by another process") || !strings.Contains(m.status, "another dossier process writes the index") || m.statusErr {
		t.Errorf("waiting: title %q, status %q (error %v)", title(m), m.status, m.statusErr)
	}
	if m.indexing != "" {
		t.Errorf("waiting for the lock spins the spinner: indexing %q", m.indexing)
	}
	m = send(t, m, indexReport(indexMsg{kind: indexReady}))
	if strings.Contains(title(m), "index kept") || m.status != "index up to date" {
		t.Errorf("ready: title %q, status %q", title(m), m.status)
	}
	m = send(t, m, indexReport(indexMsg{kind: indexBatch, indexed: 1}))
	if m.status != "index: 1 file re-indexed" || m.statusErr {
		t.Errorf("batch after the index's own notice: status %q (error %v)", m.status, m.statusErr)
	}
	m = send(t, m, indexReport(indexMsg{kind: indexBatch, indexed: 2, removed: 1}))
	if m.status != "index: 2 files re-indexed, 1 removed" {
		t.Errorf("second batch: status %q", m.status)
	}
	m = send(t, m, indexReport(indexMsg{kind: indexBatch}))
	if m.status != "index: 2 files re-indexed, 1 removed" {
		t.Errorf("a batch that changed nothing replaced the status: %q", m.status)
	}

	// The user's command answers; a batch after it leaves it be.
	m = keys(t, m, "m")
	answer := m.status
	if answer == "" || strings.HasPrefix(answer, "index") {
		t.Fatalf("the format key left status %q", answer)
	}
	m = send(t, m, indexReport(indexMsg{kind: indexBatch, removed: 1}))
	if m.status != answer {
		t.Errorf("a batch replaced the answer to the user's command %q with %q", answer, m.status)
	}

	// An error always shows; the title keeps saying so until a batch is
	// written again.
	m = send(t, m, indexReport(indexMsg{kind: indexBatch, err: errors.New("write index.db: no space left on device\nmore")}))
	if !m.statusErr || m.status != "index: write index.db: no space left on device (the watch goes on)" || !strings.Contains(title(m), "index behind") {
		t.Errorf("batch error: title %q, status %q (error %v)", title(m), m.status, m.statusErr)
	}
	m = keys(t, m, "m")
	if !strings.Contains(title(m), "index behind") {
		t.Errorf("the title forgot the failed batch once the status moved on: %q", title(m))
	}
	m = send(t, m, indexReport(indexMsg{kind: indexBatch, indexed: 1}))
	if strings.Contains(title(m), "index behind") {
		t.Errorf("a written batch left the title %q", title(m))
	}

	// The watch stopping is an error that stays in the title.
	m = send(t, m, indexReport(indexMsg{kind: indexStopped, err: errors.New("watch sub: no space left on device (raise fs.inotify.max_user_watches?)")}))
	if !m.statusErr || !strings.HasPrefix(m.status, "indexing stopped: watch sub: no space left on device") || !strings.Contains(title(m), "index not kept current") {
		t.Errorf("watch stopped: title %q, status %q (error %v)", title(m), m.status, m.statusErr)
	}
	before := m.status
	m = send(t, m, indexReport(indexMsg{kind: indexStopped}))
	if m.status != before {
		t.Errorf("the quit's end of the index changed the status to %q", m.status)
	}
}

// TestBatchSearchesAgain: results older than the index are searched
// again (a file saved meanwhile, or indexed by the start-up run, is found
// without retyping): while the
// overlay is open and nothing is chosen yet, or when it opens; once the
// user has moved among them, the note says they are older instead.
func TestBatchSearchesAgain(t *testing.T) {
	var written atomic.Bool
	calls := 0
	fake := func(ctx context.Context, q search.Query, _ search.Graph) (search.Response, error) {
		calls++
		resp := search.Response{MinScore: 0.3, Results: []search.Result{
			{Path: "parser/parse.go", StartLine: 4, EndLine: 6, Symbol: "Parse", Language: "go", Score: 0.5, Sources: []string{"text"}}}}
		if written.Load() {
			resp.Results = append([]search.Result{{Path: "sky/star.go", StartLine: 3, EndLine: 4, Symbol: "Quasar", Language: "go", Score: 0.9, Sources: []string{"text"}}}, resp.Results...)
		}
		return resp, nil
	}
	m, _ := newTestModel(t, fake)
	m = keys(t, m, "/")
	m = typeText(t, m, "quasar")
	if len(m.search.results) != 1 {
		t.Fatalf("results before the write: %+v", m.search.results)
	}
	// The start-up run finishing: results found while it ran may lack
	// files.
	n := calls
	m = send(t, m, indexReport(indexMsg{kind: indexReady}))
	if calls != n+1 {
		t.Errorf("the start-up run's end searched the open query %d times, want once", calls-n)
	}
	written.Store(true)
	m = send(t, m, indexReport(indexMsg{kind: indexBatch, indexed: 1}))
	if len(m.search.results) != 2 || m.search.results[0].Path != "sky/star.go" {
		t.Fatalf("the open query was not searched again after the batch: %+v", m.search.results)
	}

	// Closed, then a batch: nothing is searched until the overlay opens.
	m = keys(t, m, "esc")
	n = calls
	m = send(t, m, indexReport(indexMsg{kind: indexBatch, removed: 1}))
	if calls != n {
		t.Errorf("a batch searched for a closed overlay")
	}
	m = keys(t, m, "/")
	if calls != n+1 {
		t.Errorf("opening the overlay on results older than the index did not search again (%d searches)", calls-n)
	}
	m = keys(t, m, "esc", "/")
	if calls != n+1 {
		t.Errorf("opening it again with nothing new searched again")
	}

	// The user moved to the second result: it stays, and the note says why.
	m = send(t, m, tea.KeyMsg{Type: tea.KeyDown})
	n = calls
	m = send(t, m, indexReport(indexMsg{kind: indexBatch, indexed: 1}))
	if calls != n || m.search.cursor != 1 {
		t.Errorf("a batch searched again under a user choosing: %d searches, cursor %d", calls-n, m.search.cursor)
	}
	if !strings.Contains(m.search.note, "the index changed since") {
		t.Errorf("note %q does not say the results are older than the index", m.search.note)
	}

	// An answer asked for before that batch arrives after it: it replaces
	// the results the user was choosing among, and is older than the
	// index, so it is searched again.
	n = calls
	stale := searchResultMsg{seq: m.search.seq, gen: m.indexGen - 1, resp: search.Response{MinScore: 0.3,
		Results: []search.Result{{Path: "old/old.go", StartLine: 1, EndLine: 2, Symbol: "Old", Language: "go", Score: 0.4, Sources: []string{"text"}}}}}
	m = send(t, m, stale)
	if calls != n+1 || len(m.search.results) != 2 || m.search.results[0].Path != "sky/star.go" {
		t.Errorf("an answer older than the index was kept: %d searches, results %+v", calls-n, m.search.results)
	}

	// An answer cancelled by closing the overlay is no error, and the
	// query is searched again when it opens.
	m = send(t, m, searchResultMsg{seq: m.search.seq, gen: m.indexGen, err: context.Canceled})
	if m.search.err != "" {
		t.Errorf("a cancelled search shows %q", m.search.err)
	}
	m = keys(t, m, "esc")
	n = calls
	m = keys(t, m, "/")
	if calls != n+1 {
		t.Errorf("opening the overlay after a cancelled search did not search again (%d searches)", calls-n)
	}
}

// TestRunStopsIndexOnQuit: Run returns only once Index has returned, its
// context ended by the quit: no goroutine is left writing the index
// after the workbench.
func TestRunStopsIndexOnQuit(t *testing.T) {
	root, e := fixture(t)
	started := make(chan struct{})
	var finished atomic.Bool
	index := func(ctx context.Context, ev IndexEvents) error {
		ev.Ready()
		close(started)
		<-ctx.Done()
		time.Sleep(50 * time.Millisecond) // a batch finishing its write
		finished.Store(true)
		return nil
	}
	in, keysIn := io.Pipe()
	go func() {
		<-started
		keysIn.Write([]byte("q"))
	}()
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), RunOptions{Options: Options{Root: root, Engine: e, Styles: testStyles(), Index: index}, In: in, Out: io.Discard})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("q did not quit the workbench: Run waits for an index that was never told to stop")
	}
	if !finished.Load() {
		t.Error("Run returned while Index was still running")
	}
}
