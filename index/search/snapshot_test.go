package search

import (
	"bytes"
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

// snapshotOf writes a snapshot of two one-chunk files to a fresh index,
// after damage has had its way with the builder.
func snapshotOf(t *testing.T, damage func(*Builder)) *store.DB {
	t.Helper()
	return snapshotOfPaths(t, damage, "a/parse.go", "b/print.go")
}

func snapshotOfPaths(t *testing.T, damage func(*Builder), paths ...string) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "index.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	b := NewBuilder()
	for i, p := range paths {
		rec := EncodeTerms(1, []ChunkTerms{{
			Meta:  Meta{ID: "c" + p, Kind: "function", SrcType: "code", Language: "go", Symbol: "F", StartLine: 1, EndLine: 3, EndByte: 30},
			Len:   3,
			Terms: map[string]int{"pars": 1 + i, "config": 2},
		}})
		if err := b.AddFile(p, rec); err != nil {
			t.Fatal(err)
		}
	}
	damage(b)
	if err := b.Write(db.Update); err != nil {
		t.Fatal(err)
	}
	return db
}

func searchText(db *store.DB, q string) (Response, error) {
	var resp Response
	err := db.View(func(tx *store.Tx) error {
		var err error
		resp, err = NewEngine().search(tx, Query{Text: q, Mode: Text, K: DefaultK}, nil)
		return err
	})
	return resp, err
}

// TestDamagedSnapshot proves tables that point outside themselves give an
// error that says what to do, never a panic.
func TestDamagedSnapshot(t *testing.T) {
	if resp, err := searchText(snapshotOf(t, func(*Builder) {}), "parse config"); err != nil || len(resp.Results) != 2 {
		t.Fatalf("sound snapshot: %v %+v", err, resp.Results)
	}
	for name, damage := range map[string]func(*Builder){
		"document's path": func(b *Builder) { b.docs[0] = 0xff },
		"path's documents": func(b *Builder) {
			b.pathInfo[pathInfoSize+4] = 0xff // the second path's document count
		},
	} {
		_, err := searchText(snapshotOf(t, damage), "parse config")
		if err == nil || !strings.Contains(err.Error(), "dossier index") {
			t.Errorf("%s damaged: %v", name, err)
		}
	}
}

// TestDamagedChunkMetadata proves a query checks each chunk's metadata it
// reads against the entry's own checksum: a damaged entry is damage the
// next index run repairs, never wrong results.
func TestDamagedChunkMetadata(t *testing.T) {
	db := snapshotOf(t, func(b *Builder) {
		// The second chunk's symbol; the table is sealed whole after.
		i := bytes.LastIndex(b.metaData, []byte("F"))
		b.metaData[i] = 'G'
	})
	_, err := searchText(db, "parse config")
	if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "dossier index") {
		t.Errorf("damaged metadata entry: %v", err)
	}
}

// TestMetadataEntryOfAnotherDocument: offsets damaged to point at another
// document's intact entry are damage, not that document's metadata shown
// for this one (the entry's checksum covers its document's number).
func TestMetadataEntryOfAnotherDocument(t *testing.T) {
	db := snapshotOf(t, func(b *Builder) {
		// Document 0's entry becomes a copy of document 1's, checksum
		// and all, and the offsets after it move along.
		n := len(b.metaOffs) / 4
		if n < 2 {
			t.Fatalf("%d documents", n)
		}
		off := func(i int) int {
			if i == n {
				return len(b.metaData)
			}
			return int(binary.LittleEndian.Uint32(b.metaOffs[4*i:]))
		}
		e1 := append([]byte(nil), b.metaData[off(1):off(2)]...)
		data := append(append([]byte(nil), e1...), b.metaData[off(1):]...)
		shift := len(e1) - off(1)
		for i := 1; i < n; i++ {
			binary.LittleEndian.PutUint32(b.metaOffs[4*i:], uint32(off(i)+shift))
		}
		b.metaData = data
	})
	_, err := searchText(db, "parse config")
	if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "dossier index") {
		t.Errorf("another document's entry: %v", err)
	}
}

// TestDamagedDocumentTable proves a query checks the blocks of the
// document table it reads against their checksums.
func TestDamagedDocumentTable(t *testing.T) {
	db := snapshotOf(t, func(b *Builder) {
		b.sums = docSums(b.docs)
		b.docs[docSize+4]++ // the second document's ordinal
	})
	_, err := searchText(db, "parse config")
	if !errors.Is(err, store.ErrDamaged) || !strings.Contains(err.Error(), "dossier index") {
		t.Errorf("damaged document table: %v", err)
	}
}

// TestUnsortedPathTable proves a snapshot whose path table is not in path
// order (a Builder fed files in another order) still finds its files.
func TestUnsortedPathTable(t *testing.T) {
	resp, err := searchText(snapshotOfPaths(t, func(*Builder) {}, "b/print.go", "a/parse.go"), "parse config")
	if err != nil || len(resp.Results) != 2 {
		t.Fatalf("%v %+v", err, resp.Results)
	}
	if resp.Results[0].Path != "a/parse.go" {
		t.Errorf("first = %s, want a/parse.go (it holds pars twice)", resp.Results[0].Path)
	}
}
