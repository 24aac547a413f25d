package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// stage writes a snapshot whose header is name and whose one postings
// list is name, in the staging slot, committing each part on its own.
func stage(t *testing.T, db *DB, name string) {
	t.Helper()
	for _, fn := range []func(*Tx) error{
		func(tx *Tx) error { return tx.ClearStaging() },
		func(tx *Tx) error {
			return tx.StageSnapshot(func(put func(k, v []byte) error) error { return put(snapMeta, []byte(name)) })
		},
		func(tx *Tx) error {
			return tx.StagePostings(func(put func(string, []byte) error) error { return put("term", []byte(name)) })
		},
	} {
		if err := db.Update(fn); err != nil {
			t.Fatal(err)
		}
	}
}

func snapshotIn(t *testing.T, tx *Tx) string {
	t.Helper()
	h, err := tx.SnapshotValue(snapMeta)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tx.Postings("term")
	if err != nil {
		t.Fatal(err)
	}
	return string(h) + "/" + string(p)
}

// TestSnapshotSwitch proves a reader's transaction opened before the
// switch sees the old snapshot and its dirty set to its end, and one
// opened after sees the new snapshot with an empty dirty set.
func TestSnapshotSwitch(t *testing.T) {
	db, _ := openTest(t)
	stage(t, db, "one")
	if err := db.Update(func(tx *Tx) error { return tx.SwitchSnapshot() }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error { return tx.markDirty("changed.go") }); err != nil {
		t.Fatal(err)
	}
	stage(t, db, "two")

	old, err := db.bolt.Begin(false)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Rollback()
	if err := db.Update(func(tx *Tx) error { return tx.SwitchSnapshot() }); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error { return tx.ClearStaging() }); err != nil {
		t.Fatal(err)
	}
	before := &Tx{tx: old}
	if got := snapshotIn(t, before); got != "one/one" || len(before.Dirty()) != 1 {
		t.Errorf("reader from before the switch: %s, dirty %v", got, before.Dirty())
	}
	db.View(func(tx *Tx) error {
		if got := snapshotIn(t, tx); got != "two/two" || tx.DirtyCount() != 0 {
			t.Errorf("reader after the switch: %s, dirty %v", got, tx.Dirty())
		}
		return nil
	})
}

// TestInterruptedStaging proves a rebuild abandoned after staging part of
// a snapshot leaves readers on the old one with its dirty set, and the
// next rebuild completes.
func TestInterruptedStaging(t *testing.T) {
	db, _ := openTest(t)
	stage(t, db, "one")
	if err := db.Update(func(tx *Tx) error { return tx.SwitchSnapshot() }); err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *Tx) error { return tx.markDirty("changed.go") })
	// Half a rebuild: the tables but not the postings, then no switch.
	db.Update(func(tx *Tx) error { return tx.ClearStaging() })
	db.Update(func(tx *Tx) error {
		return tx.StageSnapshot(func(put func(k, v []byte) error) error { return put(snapMeta, []byte("half")) })
	})
	db.View(func(tx *Tx) error {
		if got := snapshotIn(t, tx); got != "one/one" || tx.DirtyCount() != 1 {
			t.Errorf("after an interrupted rebuild: %s, dirty %d", got, tx.DirtyCount())
		}
		return nil
	})
	stage(t, db, "two")
	if err := db.Update(func(tx *Tx) error { return tx.SwitchSnapshot() }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		if got := snapshotIn(t, tx); got != "two/two" || tx.DirtyCount() != 0 {
			t.Errorf("after the next rebuild: %s, dirty %d", got, tx.DirtyCount())
		}
		return nil
	})
}

// TestSnapshotChecksums proves a damaged snapshot value or postings list
// gives an error wrapping ErrDamaged, not wrong results.
func TestSnapshotChecksums(t *testing.T) {
	db, _ := openTest(t)
	stage(t, db, "one")
	db.Update(func(tx *Tx) error { return tx.SwitchSnapshot() })
	// Flip one byte of each stored value, behind the store's back.
	err := db.bolt.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketSnapshotA, bucketPostingsA} {
			b := tx.Bucket(name)
			k, v := b.Cursor().First()
			bad := append([]byte(nil), v...)
			bad[0] ^= 0x20
			if err := b.Put(append([]byte(nil), k...), bad); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		if _, err := tx.SnapshotValue(snapMeta); !errors.Is(err, ErrDamaged) {
			t.Errorf("damaged header: %v", err)
		}
		if _, err := tx.Postings("term"); !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "dossier index") {
			t.Errorf("damaged postings: %v", err)
		}
		return nil
	})
}

// TestReaderWaitsForWriter proves a reader waits for a writer's
// transaction instead of failing, says so once, and that cancelling its
// context ends the wait.
func TestReaderWaitsForWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), DirName, "index.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var notices atomic.Int32
	ctx := WithWaitNotice(context.Background(), func(int) { notices.Add(1) })
	released := make(chan struct{})
	go func() {
		time.Sleep(1500 * time.Millisecond)
		db.Close()
		close(released)
	}()
	r, err := OpenContext(ctx, path, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("reader: %v", err)
	}
	r.Close()
	<-released
	if n := notices.Load(); n != 1 {
		t.Errorf("%d notices, want 1", n)
	}

	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	if _, err := OpenContext(cctx, path, Options{ReadOnly: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
}
