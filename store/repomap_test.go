package store

import (
	"maps"
	"slices"
	"testing"
)

// mapState reads every map record and the digest.
func mapState(t *testing.T, db *DB) (map[string]string, string) {
	t.Helper()
	recs := map[string]string{}
	var digest string
	if err := db.View(func(tx *Tx) error {
		digest, _ = tx.MapDigest()
		return tx.EachMapRefs(func(p string, rec []byte) error { recs[p] = string(rec); return nil })
	}); err != nil {
		t.Fatal(err)
	}
	return recs, digest
}

func withMap(u FileUpdate, rec string) FileUpdate {
	if rec != "" {
		u.MapRefs = []byte(rec)
	}
	return u
}

// A file's map record follows its writes and deletes, and the digest is
// that of the records the index holds, whatever the order that got there:
// a re-indexed file changes its own record and the digest with it.
func TestMapRefsFollowTheirFiles(t *testing.T) {
	inc, _ := openTest(t)
	write := func(db *DB, us ...FileUpdate) {
		t.Helper()
		if err := db.Update(func(tx *Tx) error {
			for _, u := range us {
				if err := tx.ReplaceFile(u); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	_, empty := mapState(t, inc)
	write(inc, withMap(update("a.go", "a"), "A1"), withMap(update("b.go", "b"), "B1"), withMap(update("c.go", "c"), "C1"))
	_, first := mapState(t, inc)
	write(inc, withMap(update("a.go", "a2"), "A2"), update("b.go", "b2"))
	if err := inc.Update(func(tx *Tx) error { return tx.DeleteFile("c.go") }); err != nil {
		t.Fatal(err)
	}
	recs, digest := mapState(t, inc)
	if want := map[string]string{"a.go": "A2"}; !maps.Equal(recs, want) {
		t.Fatalf("records %v, want %v", recs, want)
	}
	fresh, _ := openTest(t)
	write(fresh, withMap(update("a.go", "a2"), "A2"))
	if _, want := mapState(t, fresh); digest != want {
		t.Fatalf("digest after changes %s, a fresh index of the same records %s", digest, want)
	}
	if slices.Contains([]string{empty, first}, digest) || empty == first {
		t.Fatalf("the digest did not change with the records: %s, %s, %s", empty, first, digest)
	}
	// Rewriting a record as it was leaves the digest alone.
	write(inc, withMap(update("a.go", "a2"), "A2"))
	if _, again := mapState(t, inc); again != digest {
		t.Fatalf("rewriting the same record moved the digest: %s -> %s", digest, again)
	}
}
