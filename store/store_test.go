package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// openTest opens a fresh index in a temp dir and checks its consistency
// when the test ends.
func openTest(t *testing.T) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), DirName, "index.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Check(); err != nil {
			t.Errorf("consistency check: %v", err)
		}
		db.Close()
	})
	return db, path
}

func chunk(path, id, hash, sym string, start, end int) Chunk {
	return Chunk{ID: id, Path: path, Kind: "function", Symbol: sym, Hash: hash, StartByte: start, EndByte: end, Part: 1, Parts: 1}
}

func update(path, blob string, chunks ...Chunk) FileUpdate {
	f := File{Path: path, Size: int64(len(blob)), Hash: "h-" + path}
	var syms []Symbol
	for _, c := range chunks {
		f.Chunks = append(f.Chunks, c.ID)
		if c.Symbol != "" {
			syms = append(syms, Symbol{Name: c.Symbol, Kind: c.Kind, Path: path, ChunkID: c.ID})
		}
	}
	return FileUpdate{File: f, Chunks: chunks, Blob: []byte(blob), Symbols: syms, Imports: []string{"fmt"}}
}

func TestPutReadDelete(t *testing.T) {
	db, _ := openTest(t)
	a := update("a.go", "func Foo() {}\nfunc Bar() {}", chunk("a.go", "c"+PathHash("a.go")+"00000001", "h1", "Foo", 0, 13),
		chunk("a.go", "c"+PathHash("a.go")+"00000002", "h2", "Bar", 14, 27))
	b := update("b.go", "func Foo() {}", chunk("b.go", "c"+PathHash("b.go")+"00000001", "h1", "Foo", 0, 13))
	if err := db.Update(func(tx *Tx) error {
		if err := tx.ReplaceFile(a); err != nil {
			return err
		}
		return tx.ReplaceFile(b)
	}); err != nil {
		t.Fatal(err)
	}
	err := db.View(func(tx *Tx) error {
		c, ok, err := tx.Chunk(a.Chunks[1].ID)
		if err != nil || !ok {
			t.Fatalf("Chunk: ok=%v err=%v", ok, err)
		}
		art, err := tx.Artifact(c)
		if err != nil || art != "func Bar() {}" {
			t.Errorf("Artifact = %q, %v", art, err)
		}
		var names []string
		if err := tx.SymbolsWithPrefix("fo", func(s Symbol) bool { names = append(names, s.Path); return true }); err != nil {
			t.Fatal(err)
		}
		if strings.Join(names, ",") != "a.go,b.go" {
			t.Errorf("SymbolsWithPrefix(fo) paths = %v", names)
		}
		if imps, _ := tx.Imports("a.go"); len(imps) != 1 || imps[0] != "fmt" {
			t.Errorf("Imports = %v", imps)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Deleting a.go keeps the content b.go shares, and leaves nothing of a.go.
	if err := db.Update(func(tx *Tx) error { return tx.DeleteFile("a.go") }); err != nil {
		t.Fatal(err)
	}
	db.View(func(tx *Tx) error {
		if _, ok, _ := tx.Chunk(a.Chunks[0].ID); ok {
			t.Error("chunk of a deleted file still found")
		}
		if c, ok, err := tx.Chunk(b.Chunks[0].ID); err != nil || !ok || c.Hash != "h1" {
			t.Errorf("the chunk b.go shares with a.go: %+v, %v, %v", c, ok, err)
		}
		n := 0
		tx.SymbolsWithPrefix("bar", func(Symbol) bool { n++; return true })
		if n != 0 {
			t.Errorf("symbol Bar survived its file")
		}
		got := tx.Counts()
		want := map[string]int{"files": 1, "chunks": 1, "blobs": 1, "pathids": 1, "symbols": 1, "imports": 1}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("bucket %s has %d records, want %d", k, got[k], v)
			}
		}
		return nil
	})
}

// A failed transaction leaves no trace of what it wrote.
func TestUpdateRollsBack(t *testing.T) {
	db, _ := openTest(t)
	boom := errors.New("boom")
	err := db.Update(func(tx *Tx) error {
		if err := tx.ReplaceFile(update("a.go", "x", chunk("a.go", "c"+PathHash("a.go")+"00000001", "h", "X", 0, 1))); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	db.View(func(tx *Tx) error {
		if n := len(tx.Paths()); n != 0 {
			t.Errorf("%d files after a rolled-back write", n)
		}
		return nil
	})
}

func setSchema(t *testing.T, path string, v string) {
	t.Helper()
	b, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketMeta).Put(metaSchema, []byte(v)) }); err != nil {
		t.Fatal(err)
	}
}

// closedIndex writes an index with one file and closes it.
func closedIndex(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error {
		return tx.ReplaceFile(update("a.go", "x", chunk("a.go", "c"+PathHash("a.go")+"00000001", "h", "X", 0, 1)))
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	return path
}

func TestSchemaVersions(t *testing.T) {
	path := closedIndex(t)

	setSchema(t, path, "99")
	for _, ro := range []bool{false, true} {
		_, err := Open(path, Options{ReadOnly: ro})
		if !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), "upgrade dossier") {
			t.Errorf("readOnly=%v: newer schema: err = %v", ro, err)
		}
	}

	setSchema(t, path, "-1")
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("unreadable schema version: err = %v", err)
	}
}

func TestOlderSchemaIsRebuilt(t *testing.T) {
	path := closedIndex(t)
	older := strconv.Itoa(SchemaVersion - 1)
	setSchema(t, path, older)

	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrOlderSchema) || !strings.Contains(err.Error(), "rebuild") {
		t.Errorf("read-only open of an older index: err = %v", err)
	}
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.Rebuilt || strconv.Itoa(db.OldSchema) != older {
		t.Errorf("Rebuilt = %v from %d, want true from %s", db.Rebuilt, db.OldSchema, older)
	}
	db.View(func(tx *Tx) error {
		if n := len(tx.Paths()); n != 0 {
			t.Errorf("older index kept %d files", n)
		}
		return nil
	})
}

// An index of schema 10 kept every chunk's content hash in a locations
// bucket that nothing read; rebuilding it leaves no such bucket behind.
func TestRebuildDropsRetiredBuckets(t *testing.T) {
	path := closedIndex(t)
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		loc, err := tx.CreateBucketIfNotExists([]byte("locations"))
		if err != nil {
			return err
		}
		if err := loc.Put([]byte("h\x00c1"), nil); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(metaSchema, []byte("10"))
	})
	b.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !db.Rebuilt || db.OldSchema != 10 {
		t.Errorf("Rebuilt = %v from %d, want true from 10", db.Rebuilt, db.OldSchema)
	}
	db.Close()
	b, err = bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.View(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte("locations")) != nil {
			t.Error("the rebuilt index still has the locations bucket of schema 10")
		}
		return nil
	})
}

// TestReadOnlyNeedsAnIndex: opening a missing index says so, naming the
// path once.
func TestReadOnlyNeedsAnIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	_, err := Open(path, Options{ReadOnly: true})
	if !errors.Is(err, ErrNoIndex) || !strings.Contains(err.Error(), "dossier index") || strings.Count(err.Error(), path) != 1 {
		t.Errorf("err = %v", err)
	}
}

func TestNotAnIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	os.WriteFile(path, []byte(strings.Repeat("not a database", 1000)), 0o644)
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "not a bbolt file") || !strings.Contains(err.Error(), "dossier index") {
		t.Errorf("err = %v", err)
	}
}

// A second writer on the same file gives up with ErrInUse inside its timeout.
func TestSecondWriterTimesOut(t *testing.T) {
	db, path := openTest(t)
	_ = db
	start := time.Now()
	_, err := Open(path, Options{Timeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "index in use by another dossier process") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("waited %v for a 300ms timeout", d)
	}
}

func TestWriterLock(t *testing.T) {
	root := t.TempDir()
	l, err := AcquireWriter(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = AcquireWriter(root, 200*time.Millisecond)
	if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "index in use by another dossier process") {
		t.Fatalf("second writer: err = %v", err)
	}
	// It names the holder, and what to do.
	if want := fmt.Sprintf("process %d holds", os.Getpid()); !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "stop that process") {
		t.Errorf("second writer: %v\nwant it to say %q and what to do", err, want)
	}
	// Readers only need the index file, which the writer does not hold
	// between batches.
	w, err := Open(Path(root), Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := Open(Path(root), Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open while a writer holds the workspace lock: %v", err)
	}
	r.Close()
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	l2, err := AcquireWriter(root, 200*time.Millisecond)
	if err != nil {
		t.Fatalf("lock after release: %v", err)
	}
	l2.Release()
}

// A file where the .dossier directory should be gives a clear error.
func TestIndexDirIsAFile(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, DirName), []byte("x"), 0o644)
	if _, err := Open(Path(root), Options{}); err == nil || !strings.Contains(err.Error(), "create index directory") {
		t.Errorf("Open: err = %v", err)
	}
	if _, err := AcquireWriter(root, 0); err == nil || !strings.Contains(err.Error(), "choose another --root") {
		t.Errorf("AcquireWriter: err = %v", err)
	}
}

func TestGenerationCountsCommits(t *testing.T) {
	db, _ := openTest(t)
	gen := func() uint64 {
		var g uint64
		if err := db.View(func(tx *Tx) error { g = tx.Generation(); return nil }); err != nil {
			t.Fatal(err)
		}
		return g
	}
	g0 := gen()
	if err := db.Update(func(tx *Tx) error { return tx.SetRepo(Repo{Name: "x"}) }); err != nil {
		t.Fatal(err)
	}
	if g1 := gen(); g1 != g0+1 {
		t.Errorf("after a commit the generation is %d, want %d", g1, g0+1)
	}
	// A failed update changes nothing, the generation included.
	_ = db.Update(func(tx *Tx) error { _ = tx.SetRepo(Repo{Name: "y"}); return errors.New("boom") })
	if g2 := gen(); g2 != g0+1 {
		t.Errorf("after a rolled-back update the generation is %d, want %d", g2, g0+1)
	}
}

func TestEmbeddingCache(t *testing.T) {
	db, _ := openTest(t)
	h1, h2 := []byte("hash-one-................32bytes"), []byte("hash-two-................32bytes")
	err := db.Update(func(tx *Tx) error {
		for _, e := range []struct {
			model string
			dims  int
			hash  []byte
		}{{"m", 8, h1}, {"m", 8, h2}, {"m", 16, h1}, {"m2", 4, h1}} {
			if err := tx.PutEmbedding(e.model, e.dims, e.hash, []byte(fmt.Sprint(e.model, e.dims))); err != nil {
				return err
			}
		}
		// A NUL in the name would make keys ambiguous.
		if err := tx.PutEmbedding("m\x00x", 2, h1, []byte("x")); err == nil {
			t.Error("a model name with a NUL byte was accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *Tx) error {
		if v := tx.Embedding("m", 8, h2); string(v) != "m8" {
			t.Errorf("Embedding(m, 8, h2) = %q", v)
		}
		if v := tx.Embedding("m2", 8, h1); v != nil {
			t.Errorf("Embedding(m2, 8) = %q, want none (m2 is cached at 4)", v)
		}
		if v := tx.Embedding("m", 16, h1); string(v) != "m16" {
			t.Errorf("Embedding(m, 16) = %q", v)
		}
		if v := tx.Embedding("m", 16, h2); v != nil {
			t.Errorf("Embedding(m, 16, h2) = %q, want none", v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGenerationIsNewForANewIndex proves a rebuilt index is never taken for
// the one it replaced: its generation starts somewhere else.
func TestGenerationIsNewForANewIndex(t *testing.T) {
	gens := map[uint64]bool{}
	for range 5 {
		db, _ := openTest(t)
		if err := db.View(func(tx *Tx) error { gens[tx.Generation()] = true; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if len(gens) != 5 {
		t.Errorf("5 new indexes share generations: %v", gens)
	}
}

func TestSymbolsLongerThan(t *testing.T) {
	db, _ := openTest(t)
	u := FileUpdate{File: File{Path: "a.go"}, Chunks: []Chunk{{ID: "c1", Path: "a.go"}}, Symbols: []Symbol{
		{Name: "Parse", Path: "a.go", ChunkID: "c1"}, {Name: "parse", Path: "a.go", ChunkID: "c1"},
		{Name: "ParseFile", Path: "a.go", ChunkID: "c1"}, {Name: "Parser", Path: "a.go", ChunkID: "c1"},
		{Name: "Pars", Path: "a.go", ChunkID: "c1"},
	}}
	if err := db.Update(func(tx *Tx) error { return tx.ReplaceFile(u) }); err != nil {
		t.Fatal(err)
	}
	var got []string
	err := db.View(func(tx *Tx) error {
		return tx.SymbolsLongerThan("PARSE", func(s Symbol) bool { got = append(got, s.Name); return true })
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "ParseFile,Parser" {
		t.Errorf("SymbolsLongerThan(PARSE) = %v, want ParseFile, Parser (not the exact Parse, parse, nor the shorter Pars)", got)
	}
}

// A reader that keeps the index open between reads learns from Current
// when to let it go: a writer waits at the turnstile, or the file at the
// path is another.
func TestCurrent(t *testing.T) {
	path := closedIndex(t)
	r, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Current() {
		t.Fatal("a reader alone is not current")
	}
	// A writer waits for the reader, holding the turnstile.
	opened := make(chan error, 1)
	go func() {
		w, err := Open(path, Options{Timeout: 10 * time.Second})
		if err == nil {
			err = w.Close()
		}
		opened <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); r.Current(); {
		if time.Now().After(deadline) {
			t.Fatal("a waiting writer never made the reader stale")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case err := <-opened:
		t.Fatalf("the writer opened the index a reader held: %v", err)
	default:
	}
	r.Close()
	if err := <-opened; err != nil {
		t.Fatalf("the writer, once the reader let go: %v", err)
	}

	// The file set aside and replaced by another.
	r, err = Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path, path+".aside"); err != nil {
		t.Fatal(err)
	}
	if r.Current() {
		t.Error("current with no file at its path")
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if r.Current() {
		t.Error("current with another file at its path")
	}
}

// BenchmarkCurrent is the check a held index makes before each query.
func BenchmarkCurrent(b *testing.B) {
	path := filepath.Join(b.TempDir(), DirName, "index.db")
	w, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	w.Close()
	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for b.Loop() {
		if !db.Current() {
			b.Fatal("not current")
		}
	}
}
