package index

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/dossierhq/dossier/store"
)

// keepEvents runs Keep on root until the returned stop is called, sending
// what its hooks report on events.
func keepEvents(t *testing.T, root string) (events chan string, stop func() error) {
	t.Helper()
	events = make(chan string, 64)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Keep(ctx, Options{Root: root}, KeepHooks{
			Waiting:  func(err error) { events <- "waiting: " + err.Error() },
			Took:     func(missing, waited bool) { events <- fmt.Sprintf("took missing=%v waited=%v", missing, waited) },
			Ran:      func(s Summary) { events <- fmt.Sprintf("ran %d files", s.Files) },
			Batch:    func(s Summary, err error) { events <- fmt.Sprintf("batch %d indexed, err %v", s.Indexed, err) },
			Watching: func() { events <- "watching" },
		})
	}()
	return events, func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			t.Fatal("Keep did not return once its context ended")
			return nil
		}
	}
}

func nextEvent(t *testing.T, events chan string, want string) string {
	t.Helper()
	select {
	case ev := <-events:
		if len(ev) < len(want) || ev[:len(want)] != want {
			t.Fatalf("Keep reported %q, want %q first", ev, want)
		}
		return ev
	case <-time.After(time.Minute):
		t.Fatalf("Keep never reported %q", want)
		return ""
	}
}

// TestKeepWaitsItsTurn: while another process holds the writer lock,
// Keep says so once and waits; when the lock is let go it takes over,
// builds the index and keeps it current; when its context ends it
// returns nil and lets the lock go.
func TestKeepWaitsItsTurn(t *testing.T) {
	defer func(d time.Duration) { KeepRetry = d }(KeepRetry)
	KeepRetry = 20 * time.Millisecond
	root := fixture(t)
	lock, err := store.AcquireWriter(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	events, stop := keepEvents(t, root)
	nextEvent(t, events, "waiting: "+store.ErrInUse.Error())
	time.Sleep(5 * KeepRetry) // it tries again meanwhile, silently
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	nextEvent(t, events, "took missing=true waited=true")
	nextEvent(t, events, "ran ")
	nextEvent(t, events, "watching")
	write(t, root, "cart/kept.go", "package cart\n\nfunc Kept() {}\n")
	nextEvent(t, events, "batch 1 indexed, err <nil>")
	if err := stop(); err != nil {
		t.Errorf("Keep: %v", err)
	}
	checkDB(t, root)
	view(t, root, func(tx *store.Tx) {
		if len(symbols(tx, "kept")) != 1 {
			t.Error("the file written while Keep watched is not in the index")
		}
	})
	l, err := store.AcquireWriter(root, time.Second)
	if err != nil {
		t.Fatalf("Keep returned holding the writer lock: %v", err)
	}
	l.Release()
}

// TestKeepEndsWhileWaiting: a Keep waiting for the lock returns nil as
// soon as its context ends, having taken nothing.
func TestKeepEndsWhileWaiting(t *testing.T) {
	root := fixture(t)
	lock, err := store.AcquireWriter(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	events, stop := keepEvents(t, root)
	nextEvent(t, events, "waiting: ")
	if err := stop(); err != nil {
		t.Errorf("Keep: %v", err)
	}
	select {
	case ev := <-events:
		t.Errorf("Keep went on after its context ended: %q", ev)
	default:
	}
}
