package store

import (
	"testing"
)

// TestFileStatsFollowFileRecords proves the stat table a re-index reads
// holds what the file records hold, through writes, touches and deletes.
func TestFileStatsFollowFileRecords(t *testing.T) {
	path := filled(t, 5)
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *Tx) error {
		if _, _, _, err := tx.TouchFile("pkg/file001.go", 4242, 77, nil); err != nil {
			return err
		}
		return tx.DeleteFile("pkg/file003.go")
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *Tx) error {
		want := map[string]File{}
		if err := tx.Files(func(f File) error { want[f.Path] = f; return nil }); err != nil {
			return err
		}
		got := map[string]File{}
		if err := tx.FileStats(func(f File) { got[f.Path] = f }); err != nil {
			return err
		}
		if len(got) != len(want) || len(want) != 4 {
			t.Errorf("stat table holds %d files, the records %d (want 4)", len(got), len(want))
		}
		for p, f := range want {
			s := got[p]
			if s.Size != f.Size || s.ModTime != f.ModTime || s.Hash != f.Hash || s.Hash == "" {
				t.Errorf("%s: stat %+v, record size %d mtime %d hash %q", p, s, f.Size, f.ModTime, f.Hash)
			}
		}
		if s := got["pkg/file001.go"]; s.Size != 4242 || s.ModTime != 77 {
			t.Errorf("touched file: stat %+v, want size 4242 mtime 77", s)
		}
		if paths := tx.Paths(); len(paths) != 4 {
			t.Errorf("Paths() = %v, want 4 paths", paths)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
