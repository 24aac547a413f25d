package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// filled writes an index of n files with texts and records large enough to
// take many pages (and overflow pages), closes it and returns its path.
func filled(t *testing.T, n int) string { return filledB(t, n) }

func filledB(t testing.TB, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), DirName, "index.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *Tx) error {
		for i := range n {
			p := fmt.Sprintf("pkg/file%03d.go", i)
			text := strings.Repeat(fmt.Sprintf("func F%d_%%d() {}\n", i), 300)
			for j := 0; j < 300; j++ {
				text = strings.Replace(text, "%d", fmt.Sprint(j), 1)
			}
			u := update(p, text, chunk(p, "c"+PathHash(p)+"00000001", fmt.Sprintf("h%d", i), fmt.Sprintf("F%d", i), 0, 20))
			u.Search = bytes.Repeat([]byte{byte(i)}, 5000)
			u.Vectors = bytes.Repeat([]byte{byte(i + 1)}, 300)
			if err := tx.ReplaceFile(u); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// readAll reads everything readers read, in one transaction.
func readAll(db *DB) error {
	return db.View(func(tx *Tx) error {
		if err := tx.Chunks(func(Chunk) error { return nil }); err != nil {
			return err
		}
		for _, p := range tx.Paths() {
			tx.SearchRecord(p)
			tx.VectorRecord(p)
			if _, ok := tx.Blob(p); !ok {
				return fmt.Errorf("no text of %s", p)
			}
		}
		if err := tx.RawBlobs(func(string, []byte) error { return nil }); err != nil {
			return err
		}
		return tx.SearchRecords(func(string, []byte) error { return nil })
	})
}

// wantDamaged checks err is a clear damage error naming the file.
func wantDamaged(t *testing.T, err error, path, problem string) {
	t.Helper()
	var de *DamageError
	if !errors.Is(err, ErrDamaged) || !errors.As(err, &de) {
		t.Fatalf("err = %v, want ErrDamaged", err)
	}
	if de.Path != path || !strings.Contains(de.Problem, problem) || !strings.Contains(err.Error(), "run `dossier index`") {
		t.Errorf("err = %v, want a damage of %s mentioning %q", err, path, problem)
	}
}

func TestTruncatedIndexIsDamaged(t *testing.T) {
	path := filled(t, 60)
	// bbolt pads the file past its last page; cut into the pages.
	if err := os.Truncate(path, usedSize(t, path)/2); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{true, false} {
		_, err := Open(path, Options{ReadOnly: ro})
		wantDamaged(t, err, path, "cut short")
	}
}

func TestEmptyIndexIsDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{true, false} {
		_, err := Open(path, Options{ReadOnly: ro})
		wantDamaged(t, err, path, "empty")
	}
}

func TestFlippedMetaByteIsDamaged(t *testing.T) {
	for _, off := range []int64{boltPageHeader + 40, 4096 + boltPageHeader + 48} { // pgid of meta 0, txid of meta 1
		path := filled(t, 5)
		flip(t, path, off)
		_, err := Open(path, Options{ReadOnly: true})
		wantDamaged(t, err, path, "checksum mismatch")
	}
}

// A value whose bytes changed fails its checksum: the reader gets an error,
// never a different value.
func TestFlippedValueByteIsDamaged(t *testing.T) {
	for _, bucket := range []string{"blobs", "search", "vectors", "chunks"} {
		t.Run(bucket, func(t *testing.T) {
			path := filled(t, 20)
			off := valueOffset(t, path, bucket, "pkg/file007.go")
			flip(t, path, off)
			db, err := Open(path, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			wantDamaged(t, readAll(db), path, "fails its checksum")
		})
	}
}

// A page bbolt cannot make sense of makes it panic; the panic is an error.
func TestDamagedPageIsAnError(t *testing.T) {
	path := filled(t, 60)
	root, pageSize := bucketRoot(t, path, bucketSearch)
	// The page's own id no longer matches where it is.
	var id [8]byte
	binary.NativeEndian.PutUint64(id[:], root+1000)
	f, _ := os.OpenFile(path, os.O_RDWR, 0)
	f.WriteAt(id[:], int64(root)*pageSize)
	f.Close()
	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantDamaged(t, readAll(db), path, "bbolt")
}

// A writer's open checks the structure of every page when the file is not
// as the last writer left it: a page no transaction would read is damage
// then, before a run keeps it. Readers do not pay for the check.
func TestWriterChecksPagesChangedOutside(t *testing.T) {
	for _, tc := range []struct {
		name    string
		damage  func(f *os.File, ps int64, root, child uint64)
		problem string
	}{
		{"zeroed", func(f *os.File, ps int64, _, child uint64) { f.WriteAt(make([]byte, ps), int64(child)*ps) }, "says it is page 0"},
		{"past the end", func(f *os.File, ps int64, root, _ uint64) {
			f.WriteAt(binary.NativeEndian.AppendUint64(nil, 1<<40), int64(root)*ps+boltPageHeader+8)
		}, "not a data page below the high-water mark"},
		{"reached twice", func(f *os.File, ps int64, root, child uint64) {
			f.WriteAt(binary.NativeEndian.AppendUint64(nil, child), int64(root)*ps+boltPageHeader+boltBranchElement+8)
		}, "is reached twice"},
		{"freelist flags", func(f *os.File, ps int64, _, child uint64) {
			f.WriteAt(binary.NativeEndian.AppendUint16(nil, 0x10), int64(child)*ps+8)
		}, "has flags 0x10, not a branch or leaf page's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filled(t, 60)
			if ChangedOutside(path) {
				t.Error("the file as its writer left it counts as changed")
			}
			root, ps := bucketRoot(t, path, bucketBlobs)
			// The root of blobs is a branch page: its first child.
			f, _ := os.OpenFile(path, os.O_RDWR, 0)
			var elem [boltBranchElement]byte
			f.ReadAt(elem[:], int64(root)*ps+boltPageHeader)
			tc.damage(f, ps, root, binary.NativeEndian.Uint64(elem[8:]))
			f.Close()
			if !ChangedOutside(path) {
				t.Error("a file written from outside does not count as changed")
			}
			db, err := Open(path, Options{ReadOnly: true})
			if err != nil {
				t.Fatalf("a reader's open checks pages: %v", err)
			}
			db.Close()
			_, err = Open(path, Options{})
			wantDamaged(t, err, path, `bucket "blobs": page `)
			wantDamaged(t, err, path, tc.problem)
		})
	}
}

// bucketRoot returns the root page of bucket in the index at path and the
// file's page size.
func bucketRoot(t *testing.T, path string, bucket []byte) (uint64, int64) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var root uint64
	var pageSize int64
	b.View(func(tx *bolt.Tx) error {
		root, pageSize = uint64(tx.Bucket(bucket).Root()), int64(tx.DB().Info().PageSize)
		return nil
	})
	return root, pageSize
}

// flip inverts one byte of the file at off.
func flip(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [1]byte
	if _, err := f.ReadAt(b[:], off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b[:], off); err != nil {
		t.Fatal(err)
	}
}

// valueOffset finds the file offset of the middle of a stored value.
func valueOffset(t *testing.T, path, bucket, k string) int64 {
	t.Helper()
	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var v []byte
	b.View(func(tx *bolt.Tx) error {
		v = bytes.Clone(tx.Bucket([]byte(bucket)).Get([]byte(k)))
		return nil
	})
	b.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, v)
	if v == nil || i < 0 || bytes.Index(data[i+1:], v) >= 0 {
		t.Fatalf("value of %s/%s not found once in the file", bucket, k)
	}
	return int64(i + len(v)/2)
}

// usedSize is the bytes of the pages the current meta page counts.
func usedSize(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m0, p0 := readMeta(f, 0)
	m1, p1 := readMeta(f, int64(m0.pageSize))
	if p0 != "" || p1 != "" {
		t.Fatalf("meta pages: %s %s", p0, p1)
	}
	return int64(max(m0.pgid, m1.pgid)) * int64(m0.pageSize)
}

// A file cut short while it is mapped faults on the first page past its
// end (SIGBUS); the fault is an error.
func TestFaultIsAnError(t *testing.T) {
	path := filled(t, 60)
	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := os.Truncate(path, 2*4096); err != nil {
		t.Fatal(err)
	}
	wantDamaged(t, readAll(db), path, "faulted")
}

func TestDoctor(t *testing.T) {
	checks := func(t *testing.T, path string, want ...string) {
		t.Helper()
		rep, err := Doctor(path, DoctorChecks{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range rep.Problems {
			got = append(got, p.Check+": "+p.Detail)
		}
		if len(want) == 0 && len(got) > 0 {
			t.Errorf("problems in a sound index: %q", got)
		}
		for _, w := range want {
			if !strings.Contains(strings.Join(got, "\n"), w) {
				t.Errorf("problems %q lack %q", got, w)
			}
		}
	}
	t.Run("sound", func(t *testing.T) { checks(t, filled(t, 20)) })
	t.Run("records disagree", func(t *testing.T) {
		path := filled(t, 20)
		b, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		b.Update(func(tx *bolt.Tx) error {
			tx.Bucket(bucketChunks).Delete([]byte("pkg/file003.go"))
			tx.Bucket(bucketSymbols).Put(symbolKey("Gone", "pkg/file004.go", "cnothere"), []byte(`{}`))
			// A member symbol that no symnames list holds would outlive its file.
			tx.Bucket(bucketSymbols).Put(append(symbolKey("Orphan", "pkg/file005.go", "cnothere"), "\x0012"...), []byte(`{}`))
			tx.Bucket(bucketDirty).Put([]byte("../outside"), nil)
			return nil
		})
		b.Close()
		checks(t, path, "chunks: pkg/file003.go has no chunk list", `symbols: symbol "gone" of pkg/file004.go points to chunk cnothere`,
			`symbols: symbol "orphan" of pkg/file005.go is missing from the file's symbol names`,
			`dirty: the dirty set names "../outside"`)
		// The next writer rebuilds rather than keep the disagreement.
		_, err = Open(path, Options{})
		wantDamaged(t, err, path, "`dossier doctor` found chunks")
	})
	t.Run("damaged value", func(t *testing.T) {
		path := filled(t, 20)
		flip(t, path, valueOffset(t, path, "blobs", "pkg/file011.go"))
		checks(t, path, `blobs: the blobs value of "pkg/file011.go" fails its checksum`)
	})
	t.Run("damaged page", func(t *testing.T) {
		path := filled(t, 60)
		b, _ := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
		var root, size int64
		b.View(func(tx *bolt.Tx) error {
			root, size = int64(tx.Bucket(bucketFiles).Root()), int64(tx.DB().Info().PageSize)
			return nil
		})
		b.Close()
		flip(t, path, root*size) // the page's id
		checks(t, path, `pages: bucket "files": bbolt: assertion failed`)
	})
}

// A file record that does not decode is damage (a writer rebuilds), not an
// error no run ever gets past.
func TestUndecodableRecordIsDamaged(t *testing.T) {
	path := filled(t, 20)
	// A quote in the middle of the record ends a string early.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteAt([]byte(`"`), valueOffset(t, path, "files", "pkg/file007.go"))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *Tx) error { return tx.Files(func(File) error { return nil }) })
	wantDamaged(t, err, path, "does not decode")
	err = db.View(func(tx *Tx) error { _, _, err := tx.File("pkg/file007.go"); return err })
	wantDamaged(t, err, path, "does not decode")
}

// A FIFO at the index's path is damage, found without waiting on it.
func TestFIFOIndexIsDamaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), DirName, "index.db")
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{true, false} {
		done := make(chan error, 1)
		go func() {
			db, err := Open(path, Options{ReadOnly: ro})
			if err == nil {
				db.Close()
			}
			done <- err
		}()
		select {
		case err := <-done:
			wantDamaged(t, err, path, "not a regular file")
		case <-time.After(20 * time.Second):
			t.Fatalf("read-only %v: opening a FIFO index blocked", ro)
		}
	}
}

// TestSetAsideKeepsTheLink: an index.db that is a link to a file on
// another disk has that file set aside beside it, and the link stays, so
// the rebuild goes where the user keeps the index.
func TestSetAsideKeepsTheLink(t *testing.T) {
	file := filled(t, 3)
	link := filepath.Join(t.TempDir(), DirName, "index.db")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	kept, err := SetAside(link)
	if err != nil || kept != DamagedPath(file) {
		t.Fatalf("SetAside = %q, %v; want %q", kept, err, DamagedPath(file))
	}
	if to, err := os.Readlink(link); err != nil || to != file {
		t.Errorf("the link is %q, %v; want it kept, to %s", to, err, file)
	}
	if _, err := os.Stat(kept); err != nil {
		t.Errorf("the damaged file is not kept: %v", err)
	}
	db, err := Open(link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the new index is not written where the link leads: %v", err)
	}

	// A link to a file that is not an index: the link is set aside, the
	// file it leads to is left as it is.
	precious := filepath.Join(t.TempDir(), "bashrc")
	if err := os.WriteFile(precious, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(link)
	if err := os.Symlink(precious, link); err != nil {
		t.Fatal(err)
	}
	if kept, err := SetAside(link); err != nil || kept != DamagedPath(link) {
		t.Errorf("SetAside of a link to a file not an index = %q, %v; want %q", kept, err, DamagedPath(link))
	}
	if data, err := os.ReadFile(precious); err != nil || string(data) != "precious" {
		t.Errorf("the file the link led to: %q, %v", data, err)
	}
	if _, err := os.Lstat(DamagedPath(precious)); err == nil {
		t.Errorf("the file the link led to was set aside")
	}
}
