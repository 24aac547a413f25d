package ui

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// IndexEvents are how Options.Index reports what it does, from its own
// goroutine, one call at a time. The workbench shows them without ever
// waiting on them: Index is never held up by the screen.
type IndexEvents struct {
	// Progress says how far a run is: the start-up run's, or a batch's
	// that takes long (a checkout).
	Progress func(done, total int)
	// Waiting says another process holds the index's writer lock (why
	// says which): that process writes the index, and Index waits its
	// turn.
	Waiting func(why string)
	// Ready says the start-up run is done: the index is up to date, and
	// Index keeps it so from now on.
	Ready func()
	// Batch reports the changes written while the workspace is watched
	// (files re-indexed and removed), or the error a batch hit; Index
	// goes on after it.
	Batch func(indexed, removed int, err error)
	// Notice is what Index does besides indexing (a damaged index set
	// aside and rebuilt).
	Notice func(msg string)
}

// indexKind says what an indexMsg reports.
type indexKind int

const (
	indexProgress indexKind = iota
	indexWaiting
	indexReady
	indexBatch
	indexNotice
	indexStopped // Index returned: err says why, nil when the workbench quit
)

// indexNote is what the title says of an index the workbench does not
// keep current.
type indexNote uint8

const (
	noteNone      indexNote = iota
	noteElsewhere           // another process holds the writer lock
	noteBehind              // the last batch failed
	noteStopped             // the watch stopped
)

func (n indexNote) String() string {
	switch n {
	case noteElsewhere:
		return "index kept by another process"
	case noteBehind:
		return "index behind"
	case noteStopped:
		return "index not kept current"
	}
	return ""
}

// indexMsg is one report of the background index; ch is read again
// until it closes.
type indexMsg struct {
	kind             indexKind
	done, total      int
	indexed, removed int
	text             string
	err              error
	ch               <-chan indexMsg
}

// batchProgressAfter is how long a batch runs before its progress is
// shown: a lone save's batch takes milliseconds, and its "indexing 1/1"
// would only flicker in the title.
const batchProgressAfter = 300 * time.Millisecond

// background tracks the index's goroutine: Run returns only once it has
// ended, so no goroutine is left writing the index after the workbench.
type background struct {
	mu      sync.Mutex
	closed  bool
	running sync.WaitGroup
}

// start reports whether a goroutine may start (not once stop was called).
func (b *background) start() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.running.Add(1)
	return true
}

// stop waits for the goroutines started, and lets no other start.
func (b *background) stop() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.running.Wait()
}

// indexCmd runs Options.Index in the background for the workbench's
// life, one report at a time (glow's findNextLocalFile pattern). Every
// send gives up when the context ends, so a quit is never held up by a
// report nobody reads.
func (m Model) indexCmd() tea.Cmd {
	run, ctx, logf, bg := m.opts.Index, m.opts.Ctx, m.logf, m.bg
	if ctx == nil {
		ctx = context.Background()
	}
	if !bg.start() {
		return nil
	}
	ch := make(chan indexMsg, 16)
	send := func(msg indexMsg) {
		select {
		case ch <- msg:
		case <-ctx.Done():
		}
	}
	go func() {
		defer bg.running.Done()
		defer close(ch)
		defer func() {
			if p := recover(); p != nil {
				logf("panic while indexing: %v\n%s", p, debug.Stack())
				send(indexMsg{kind: indexStopped, err: fmt.Errorf("internal error while indexing: %v (see the debug log)", p)})
			}
		}()
		var last, batch time.Time
		ready := false
		err := run(ctx, IndexEvents{
			Progress: func(done, total int) {
				now := time.Now()
				if ready && batch.IsZero() {
					batch = now
				}
				if now.Sub(last) <= 100*time.Millisecond || ready && now.Sub(batch) < batchProgressAfter {
					return
				}
				last = now
				select {
				case ch <- indexMsg{done: done, total: total}:
				default: // the screen is behind; skip this tick
				}
			},
			Waiting: func(why string) {
				logf("index: %s: waiting for that process to let go", why)
				send(indexMsg{kind: indexWaiting, text: why})
			},
			Ready: func() {
				ready = true
				logf("index: up to date; watching the workspace")
				send(indexMsg{kind: indexReady})
			},
			Batch: func(indexed, removed int, err error) {
				batch = time.Time{}
				logf("index: batch: %d re-indexed, %d removed, err %v", indexed, removed, err)
				send(indexMsg{kind: indexBatch, indexed: indexed, removed: removed, err: err})
			},
			Notice: func(msg string) {
				logf("index: %s", msg)
				send(indexMsg{kind: indexNotice, text: msg})
			},
		})
		if err != nil {
			logf("index: stopped: %v", err)
		}
		send(indexMsg{kind: indexStopped, err: err})
	}()
	return readIndex(ch)
}

func readIndex(ch <-chan indexMsg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		msg.ch = ch
		return msg
	}
}

// handleIndex shows a report of the background index. The index's
// notices take the status line only when it holds nothing else, or an
// earlier notice of the index: the answer to the user's last command
// stays until the next. Its errors always take it, and the title says
// the index is behind until it has caught up again.
func (m Model) handleIndex(msg indexMsg) (tea.Model, tea.Cmd) {
	next := readIndex(msg.ch)
	switch msg.kind {
	case indexProgress:
		if msg.total > 0 {
			m.indexing = fmt.Sprintf("indexing %d/%d", msg.done, msg.total)
		} else {
			m.indexing = fmt.Sprintf("indexing %d files", msg.done)
		}
		return m, next
	case indexWaiting:
		m.indexing, m.indexNote = "", noteElsewhere
		m.indexStatus("another dossier process writes the index: search answers from what it writes; the workbench keeps the index current once it lets go", false, false)
		return m, next
	case indexReady:
		m.indexing, m.indexNote = "", noteNone
		m.indexStatus("index up to date", false, true)
		// Results found while it was being built may lack files.
		m.indexGen++
		again := m.searchAgain()
		return m, tea.Batch(next, m.loadCmd(), again, m.treeAgain())
	case indexNotice:
		m.indexStatus("index: "+firstLine(msg.text), false, true)
		return m, next
	case indexBatch:
		m.indexing = ""
		if msg.err != nil {
			m.indexNote = noteBehind
			m.indexStatus("index: "+firstLine(msg.err.Error())+" (the watch goes on)", true, true)
			return m, next
		}
		m.indexNote = noteNone
		if msg.indexed+msg.removed == 0 {
			return m, next
		}
		m.indexGen++
		m.indexStatus("index: "+batchText(msg.indexed, msg.removed), false, false)
		// The flow's parts may be stale now, and open results older than
		// the index.
		again := m.searchAgain()
		return m, tea.Batch(next, m.readCmd(true), again, m.treeAgain())
	case indexStopped:
		m.indexing = ""
		if msg.err == nil {
			return m, nil // the workbench is quitting
		}
		m.indexNote = noteStopped
		m.indexStatus("indexing stopped: "+firstLine(msg.err.Error())+" (search answers from the index as it is; restart the workbench to try again)", true, true)
		return m, nil
	}
	return m, next
}

// indexStatus puts text on the status line when it holds nothing, or
// the index's own last notice, or always when force.
func (m *Model) indexStatus(text string, isErr, force bool) {
	if !force && m.status != "" && m.status != m.lastIndexStatus {
		return
	}
	m.status, m.statusErr, m.lastIndexStatus = text, isErr, text
}

// batchText says what a batch did: "1 file re-indexed", "2 files
// re-indexed, 1 removed".
func batchText(indexed, removed int) string {
	files := func(n int) string {
		if n == 1 {
			return "1 file"
		}
		return fmt.Sprintf("%d files", n)
	}
	switch {
	case removed == 0:
		return files(indexed) + " re-indexed"
	case indexed == 0:
		return files(removed) + " removed"
	}
	return files(indexed) + " re-indexed, " + fmt.Sprint(removed) + " removed"
}
