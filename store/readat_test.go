package store

import (
	"bytes"
	"errors"
	"path/filepath"
	"sync"
	"testing"
)

// TestSealedValueReadAt proves a snapshot value read by copy, in parts
// and from several goroutines, gives the bytes the transaction maps, that
// a read past its end is damage, not a panic, and that a missing value
// reads as empty.
func TestSealedValueReadAt(t *testing.T) {
	db, _ := openTest(t)
	big := make([]byte, 3<<20) // several pages: an overflow run
	for i := range big {
		big[i] = byte(i * 7)
	}
	stageBig(t, db, big)
	err := db.View(func(tx *Tx) error {
		s := tx.SnapshotSealed([]byte("big"))
		if s.Len() != len(big) {
			t.Fatalf("Len = %d, want %d", s.Len(), len(big))
		}
		if _, ok := tx.offset(s.v); !ok {
			t.Error("a committed value is not found in the file")
		}
		var wg sync.WaitGroup
		for _, off := range []int{0, 4095, 1 << 20, len(big) - 10} {
			wg.Go(func() {
				p := make([]byte, min(70000, len(big)-off))
				if err := s.ReadAt(p, off); err != nil {
					t.Errorf("ReadAt %d: %v", off, err)
				} else if !bytes.Equal(p, big[off:off+len(p)]) {
					t.Errorf("ReadAt %d: other bytes than the value's", off)
				}
			})
		}
		wg.Wait()
		if err := s.ReadAt(make([]byte, 11), len(big)-10); !errors.Is(err, ErrDamaged) {
			t.Errorf("read past the end: %v", err)
		}
		if n := tx.SnapshotSealed([]byte("missing")).Len(); n != 0 {
			t.Errorf("missing value: Len %d", n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadAtAfterSetAside proves a value read by copy comes from the file
// the open database maps, even when a writer has meanwhile set that file
// aside (a rebuild of a damaged index) and put a new index at its path:
// reading the new file at the old offsets would give other bytes and
// report damage that is not there.
func TestReadAtAfterSetAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, DirName, "index.db")
	want := bytes.Repeat([]byte("old index "), 100_000)
	stage := func(db *DB, v []byte) { t.Helper(); stageBig(t, db, v) }
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	stage(db, want)
	db.Close()

	reader, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	err = reader.View(func(tx *Tx) error {
		s := tx.SnapshotSealed([]byte("big"))
		// A writer sets the file aside and builds a new index in its place.
		if _, err := SetAside(path); err != nil {
			t.Fatal(err)
		}
		other, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		stage(other, bytes.Repeat([]byte("NEW INDEX "), 100_000))
		other.Close()

		got := make([]byte, len(want))
		if err := s.ReadAt(got, 0); err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			t.Errorf("read %q..., want %q...: the value was read from the file now at the path", got[:20], want[:20])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// stageBig makes v the snapshot's value "big", through staging and the
// switch, as an index run does.
func stageBig(t *testing.T, db *DB, v []byte) {
	t.Helper()
	for _, fn := range []func(*Tx) error{
		func(tx *Tx) error { return tx.ClearStaging() },
		func(tx *Tx) error {
			return tx.StageSnapshot(func(put func(k, v []byte) error) error {
				if err := put(snapMeta, []byte("m")); err != nil {
					return err
				}
				return put([]byte("big"), append([]byte(nil), v...))
			})
		},
		func(tx *Tx) error { return tx.SwitchSnapshot() },
	} {
		if err := db.Update(fn); err != nil {
			t.Fatal(err)
		}
	}
}
