package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
)

// run runs the dossier binary (the test binary as main) and returns its
// output and exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := dossier(args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		code = cmd.ProcessState.ExitCode()
	}
	return out.String(), errb.String(), code
}

// noTrace fails when a process printed a Go trace or a raw fault.
func noTrace(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range []string{"goroutine", "panic", "SIGBUS", "SIGSEGV", "runtime."} {
		if strings.Contains(out, s) {
			t.Errorf("%s printed %q:\n%s", what, s, out)
		}
	}
}

// indexed returns a workspace and its freshly built index file.
func indexed(t *testing.T) (string, string) {
	t.Helper()
	root := workspace(t, 150)
	if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errOut)
	}
	return root, store.Path(root)
}

// readersFail checks that search (and stats, which reads no values, when
// the whole file is damaged) refuse the damaged index with one clear line.
func readersFail(t *testing.T, root, problem string, stats bool) {
	t.Helper()
	readers := [][]string{{"search", "--root", root, "F3_4 does a thing"}}
	if stats {
		readers = append(readers, []string{"stats", "--root", root})
	}
	doctorFinds(t, root, problem)
	for _, args := range readers {
		out, errOut, code := run(t, args...)
		noTrace(t, args[0], out+errOut)
		if code != exitError || !strings.Contains(errOut, "damaged") || !strings.Contains(errOut, problem) ||
			!strings.Contains(errOut, "run `dossier index`") {
			t.Errorf("%s on a damaged index: exit %d\n%s%s", args[0], code, out, errOut)
		}
	}
}

// doctorFinds checks that `dossier doctor` lists the problem with its fix
// and exits 1, in both forms.
func doctorFinds(t *testing.T, root, problem string) {
	t.Helper()
	out, errOut, code := run(t, "doctor", "--root", root)
	noTrace(t, "doctor", out+errOut)
	if code != exitError || !strings.Contains(out, problem) || !strings.Contains(out, "fix: run `dossier index`") {
		t.Errorf("doctor on a damaged index: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = run(t, "doctor", "--root", root, "--json")
	var rep struct {
		OK       bool
		Problems []store.Problem
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != exitError || rep.OK || len(rep.Problems) == 0 ||
		!strings.Contains(rep.Problems[0].Detail, problem) || rep.Problems[0].Fix != store.FixDamaged {
		t.Errorf("doctor --json: exit %d, %v\n%s", code, err, out)
	}
}

// doctorClean checks that `dossier doctor` finds nothing wrong.
func doctorClean(t *testing.T, root string) {
	t.Helper()
	out, errOut, code := run(t, "doctor", "--root", root, "--json")
	if code != 0 || !strings.Contains(out, `"ok": true`) || !strings.Contains(out, `"problems": []`) ||
		!strings.Contains(out, `"module": "`+cli.Version().Module+`"`) {
		t.Errorf("doctor on a sound index: exit %d\n%s%s", code, out, errOut)
	}
	if out, _, code = run(t, "doctor", "--root", root); code != 0 || !strings.Contains(out, "no problems found") {
		t.Errorf("doctor on a sound index: exit %d\n%s", code, out)
	}
}

// repairs checks that `dossier index` keeps the damaged file, rebuilds and
// says so, and that search works again.
func repairs(t *testing.T, root string) {
	t.Helper()
	out, errOut, code := run(t, "index", "--root", root, "--json")
	noTrace(t, "index", out+errOut)
	if code != 0 || !strings.Contains(errOut, "index.db is damaged (") || !strings.Contains(errOut, "kept as index.db.damaged, rebuilding from scratch") {
		t.Fatalf("index on a damaged index: exit %d\n%s", code, errOut)
	}
	var sum index.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || !sum.RebuiltDamaged || sum.Files != 151 || sum.Indexed != 151 {
		t.Errorf("summary: %v: rebuilt_damaged %v, files %d, indexed %d", err, sum.RebuiltDamaged, sum.Files, sum.Indexed)
	}
	if _, err := os.Stat(store.DamagedPath(store.Path(root))); err != nil {
		t.Errorf("damaged file not kept: %v", err)
	}
	out, errOut, code = run(t, "search", "--root", root, "-k", "1", "F3_4 does a thing")
	if code != 0 || !strings.Contains(out, "F3_4") {
		t.Errorf("search after the rebuild: exit %d\n%s%s", code, out, errOut)
	}
	doctorClean(t, root)
	// The next run finds a sound index.
	if out, errOut, code = run(t, "index", "--root", root); code != 0 || strings.Contains(errOut, "damaged") {
		t.Errorf("second index: exit %d\n%s%s", code, out, errOut)
	}
}

// usedBytes is the size of the pages index.db's current meta page counts
// (bbolt pads the file past them).
func usedBytes(t *testing.T, path string) int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ne := binary.NativeEndian
	pageSize := int64(ne.Uint32(data[16+8:]))
	pgid := max(ne.Uint64(data[16+40:]), ne.Uint64(data[pageSize+16+40:]))
	return int64(pgid) * pageSize
}

func TestTruncatedIndex(t *testing.T) {
	root, path := indexed(t)
	doctorClean(t, root)
	if err := os.Truncate(path, usedBytes(t, path)/2); err != nil {
		t.Fatal(err)
	}
	readersFail(t, root, "cut short", true)
	repairs(t, root)
}

func TestEmptyIndex(t *testing.T) {
	root, path := indexed(t)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	readersFail(t, root, "empty", true)
	repairs(t, root)
}

func TestFlippedMetaByte(t *testing.T) {
	root, path := indexed(t)
	flipByte(t, path, 16+40) // meta 0's high-water mark
	readersFail(t, root, "meta page 0: checksum mismatch", true)
	repairs(t, root)
}

// A changed byte in a file's vectors is an error, never a different
// ranking; the next `dossier index` rebuilds although it would not read
// that file's vectors again.
func TestFlippedValueByte(t *testing.T) {
	root, path := indexed(t)
	db, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var rec []byte
	db.View(func(tx *store.Tx) error {
		rec = bytes.Clone(tx.VectorRecord("pkg001/f60.go"))
		return nil
	})
	db.Close()
	data, _ := os.ReadFile(path)
	if i := bytes.Index(data, rec); rec == nil || i < 0 {
		t.Fatal("vector record not found in the file")
	} else {
		flipByte(t, path, int64(i+len(rec)-3))
	}
	// A search of a clean index reads the snapshot's vector table, not
	// the files' records: doctor finds the damage (and notes it for the
	// next index run, which rebuilds), the search answers from the table.
	doctorFinds(t, root, `the vectors value of "pkg001/f60.go" fails its checksum`)
	if out, errOut, code := run(t, "search", "--root", root, "F3_4 does a thing"); code != 0 || !strings.Contains(out, "F3_4") {
		t.Errorf("search of a clean index with a damaged vector record it does not read: exit %d\n%s%s", code, out, errOut)
	}
	repairs(t, root)
}

// TestFlippedVectorTableByte proves a flipped byte in the snapshot's
// vector table, which every vector search scans, fails the search.
func TestFlippedVectorTableByte(t *testing.T) {
	root, path := indexed(t)
	db, err := store.Open(path, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	// The table is laid out by column (index/search/vectable.go): its
	// first piece is the scales of the first documents, in path order,
	// which every vector search reads.
	var scales []byte
	db.View(func(tx *store.Tx) error {
		return tx.VectorRecords(func(p string, rec []byte) error {
			set, err := search.DecodeVectors(rec)
			if err != nil {
				t.Fatal(err)
			}
			for j := range set.Len() {
				scales = append(scales, set.Entry(j)[:4]...)
			}
			return nil
		})
	})
	db.Close()
	data, _ := os.ReadFile(path)
	needle := scales[:min(len(scales), 64)]
	at := bytes.Index(data, needle)
	if at < 0 || bytes.Contains(data[at+1:], needle) {
		t.Fatal("the vector table's scales are not in the file, once")
	}
	flipByte(t, path, int64(at+5))
	problem := `search snapshot value "vecs"`
	args := []string{"search", "--root", root, "F3_4 does a thing"}
	out, errOut, code := run(t, args...)
	noTrace(t, "search", out+errOut)
	if code != exitError || !strings.Contains(errOut, "damaged") || !strings.Contains(errOut, problem) || !strings.Contains(errOut, "run `dossier index`") {
		t.Errorf("search on a damaged vector table: exit %d\n%s%s", code, out, errOut)
	}
	// doctor reports snapshot damage with the rebuild fix (index/doctor.go).
	if out, errOut, code := run(t, "doctor", "--root", root); code != exitError || !strings.Contains(out, problem) {
		t.Errorf("doctor on a damaged vector table: exit %d\n%s%s", code, out, errOut)
	}
	repairs(t, root)
}

// Damage on a page no run reads (a leaf of the symbol-name lists that the
// edited files do not reach, or that nothing reaches when no file changed)
// is found by the next index anyway, which keeps the file aside and
// rebuilds: the file changed behind dossier's back, so the run checks
// every page before keeping what it does not rewrite (issue 30).
func TestDamagedPageNoRunReads(t *testing.T) {
	for _, edited := range []int{3, 0} {
		t.Run(fmt.Sprintf("%d files edited", edited), func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{}
			for i := range 300 {
				files[fmt.Sprintf("pkg%03d/f%d.go", i/50, i)] = fmt.Sprintf("package p\n\n// Limits of F%d.\nconst (\n\tMinF%d = 1\n\tMaxF%d = 2\n)\n\n// F%d does a thing.\nfunc F%d(x int) int { return x * MaxF%d }\n", i, i, i, i, i, i)
			}
			writeTree(t, root, files)
			// Old enough for a run that finds nothing changed to trust
			// the tree and write nothing.
			old := time.Now().Add(-time.Hour)
			filepath.WalkDir(root, func(p string, _ fs.DirEntry, _ error) error { return os.Chtimes(p, old, old) })
			for range 2 { // the second run learns the tree .dossier was added to
				if _, errOut, code := runCLI(t, "index", "--root", root); code != 0 {
					t.Fatalf("index: exit %d: %s", code, errOut)
				}
			}
			page := zeroPageOf(t, store.Path(root), "pkg005/f280.gominf280", "pkg005/f280.gomaxf280")
			changed := map[string]string{}
			for i := range edited {
				rel := fmt.Sprintf("pkg000/f%d.go", i)
				changed[rel] = files[rel] + "\n// Changed.\n"
			}
			writeTree(t, root, changed)
			out, errOut, code := run(t, "index", "--root", root)
			noTrace(t, "index", out+errOut)
			problem := fmt.Sprintf(`index.db is damaged (bucket "symnames": page %d says it is page 0): kept as index.db.damaged, rebuilding from scratch`, page)
			if code != 0 || !strings.Contains(errOut, problem) {
				t.Fatalf("index after damage on a page it does not rewrite: exit %d\n%s%s", code, out, errOut)
			}
			doctorClean(t, root)
			compareWithFresh(t, root, "F280 does a thing\nMaxF280\nlimits of F1\nreturn x\n")
		})
	}
}

// zeroPageOf zeroes the page of the index file at path that holds one of
// entries (a leaf's key followed by the start of its value), found once in
// the file, and returns its number.
func zeroPageOf(t *testing.T, path string, entries ...string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(binary.NativeEndian.Uint32(data[16+8:]))
	at := -1
	for _, e := range entries {
		if i := bytes.Index(data, []byte(e)); i >= 0 && bytes.Count(data, []byte(e)) == 1 {
			at = i
		}
	}
	if at < 0 {
		t.Fatalf("none of %q is in %s, once", entries, path)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(make([]byte, pageSize), int64(at/pageSize*pageSize)); err != nil {
		t.Fatal(err)
	}
	return at / pageSize
}

func flipByte(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [1]byte
	f.ReadAt(b[:], off)
	b[0] ^= 0x5a
	if _, err := f.WriteAt(b[:], off); err != nil {
		t.Fatal(err)
	}
}
