package evidence

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/repomap"
	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store"
)

// mapCacheWorkspace is an indexed Go workspace of a dozen files that
// reference each other's definitions.
func mapCacheWorkspace(t *testing.T) (*Engine, string) {
	t.Helper()
	e, root := newTestEngine(t)
	writeFile(t, root, "go.mod", "module example.com/ws\n\ngo 1.22\n")
	writeFile(t, root, "core/thing.go", "package core\n\n// CoreThing is the core.\nfunc CoreThing() int { return 1 }\n\ntype CoreState struct{ N int }\n")
	for i := 0; i < 10; i++ {
		writeFile(t, root, fmt.Sprintf("use/u%d.go", i), fmt.Sprintf("package use\n\nfunc UseNumber%d() int { return CoreThing() + %d }\n\nfunc helperValue%d(s CoreState) int { return s.N }\n", i, i, i))
	}
	reindex(t, root)
	return e, root
}

func writeFile(t *testing.T, root, rel, text string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func reindex(t *testing.T, root string) {
	t.Helper()
	ix, err := index.Open(index.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// graphs returns the graph ReadGraph builds from scratch and the one the
// cache gives (writing what it would write), both encoded, and whether
// the cache was built (not read from its graph file).
func graphs(t *testing.T, root string) (fresh, cached []byte, built bool) {
	t.Helper()
	db, err := openIndex(root)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var w mapCacheWrite
	err = db.View(func(tx *store.Tx) error {
		f, err := ReadGraph(tx)
		if err != nil {
			return err
		}
		var c *repomap.Graph
		if c, w, err = cachedGraph(tx, store.Dir(root)); err != nil {
			return err
		}
		if fresh, err = f.MarshalBinary(); err == nil {
			cached, err = c.MarshalBinary()
		}
		return err
	})
	if err == nil {
		err = w.write()
	}
	if err != nil {
		t.Fatal(err)
	}
	return fresh, cached, w.graph != nil
}

// TestMapGraphCacheIsExact: the graph the cache gives is the one built
// from scratch, when first built, when read back, and after files change
// (a new definition that unchanged files mention, a file removed); a
// changed index is never answered from the old graph, and the map shows
// the change.
func TestMapGraphCacheIsExact(t *testing.T) {
	e, root := mapCacheWorkspace(t)
	check := func(when string, wantBuilt bool) {
		t.Helper()
		fresh, cached, built := graphs(t, root)
		if !bytes.Equal(fresh, cached) {
			t.Fatalf("%s: the cached graph is not the one built from scratch", when)
		}
		if built != wantBuilt {
			t.Fatalf("%s: built %v, want %v", when, built, wantBuilt)
		}
	}
	check("first", true)
	check("read back", false)
	if _, err := os.Stat(filepath.Join(store.Dir(root), mapGraphFile)); err != nil {
		t.Fatal(err)
	}
	before, err := e.mapExtract(nil, 200)
	if err != nil {
		t.Fatal(err)
	}
	// CoreThing moves to a new file under a new name the unchanged use/
	// files do not mention; ZetaPoint is new, and mentioned by them all.
	writeFile(t, root, "core/thing.go", "package core\n\ntype CoreState struct{ N int }\n")
	writeFile(t, root, "core/zeta.go", "package core\n\n// ZetaPoint is new.\nfunc ZetaPoint() int { return 2 }\n")
	for i := 0; i < 10; i += 2 {
		writeFile(t, root, fmt.Sprintf("use/u%d.go", i), fmt.Sprintf("package use\n\nfunc UseNumber%d() int { return ZetaPoint() + %d }\n", i, i))
	}
	os.Remove(filepath.Join(root, "use", "u9.go"))
	reindex(t, root)
	check("after changes", true) // most files changed: one pass over the index
	check("read back after changes", false)
	writeFile(t, root, "use/u1.go", "package use\n\nfunc UseNumber1() int { return ZetaPoint() }\n")
	reindex(t, root)
	check("after one file changed", true) // a look-up for that file
	after, err := e.mapExtract(nil, 200)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(after.Content, "ZetaPoint") || strings.Contains(after.Content, "func CoreThing") || strings.Contains(after.Content, "u9.go") || after.Content == before.Content {
		t.Fatalf("the map does not follow the index:\n%s", after.Content)
	}
}

// TestMapGraphCacheRebuildsWhatIsDamaged: a damaged graph or rows file,
// or one a crashed writer left half-written under its temporary name, is
// never used: the graph is built again, exactly.
func TestMapGraphCacheRebuildsWhatIsDamaged(t *testing.T) {
	_, root := mapCacheWorkspace(t)
	graphs(t, root)
	dir := store.Dir(root)
	for _, name := range []string{mapGraphFile, mapRowsFile} {
		path := filepath.Join(dir, name)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		raw[len(raw)/2] ^= 0xff
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		// A killed writer's temporary file, holding no lock.
		left := filepath.Join(dir, "."+name+".tmp-123")
		if err := os.WriteFile(left, raw[:len(raw)/3], 0o600); err != nil {
			t.Fatal(err)
		}
		if name == mapRowsFile { // else the graph file answers
			os.Remove(filepath.Join(dir, mapGraphFile))
		}
		fresh, cached, built := graphs(t, root)
		if !bytes.Equal(fresh, cached) || !built {
			t.Fatalf("%s damaged: built %v, equal %v", name, built, bytes.Equal(fresh, cached))
		}
		if _, err := os.Stat(left); err == nil {
			t.Errorf("%s: the killed writer's temporary file is still there", name)
		}
	}
}

// TestMapGraphCacheReadsOnlyChangedFiles: a file whose hash the index
// still has keeps its row, read from the rows file, not the index: a
// row marked there survives a change of another file.
func TestMapGraphCacheReadsOnlyChangedFiles(t *testing.T) {
	_, root := mapCacheWorkspace(t)
	graphs(t, root)
	markRows(t, root, "use/u3.go", "use/u4.go")
	writeFile(t, root, "use/u4.go", "package use\n\nfunc UseNumber4() int { return CoreThing() + 40 }\n")
	reindex(t, root)
	graphs(t, root)
	if marked := markedRows(t, root); !marked["use/u3.go"] || marked["use/u4.go"] {
		t.Fatalf("u3.go (unchanged) was read again, or u4.go (changed) was not: rows still marked %v", marked)
	}
}

const rowMark = "marked in the cache"

// markRows marks the first definition of each path's row in root's rows
// file, where only a row kept from the file still carries it.
func markRows(t *testing.T, root string, paths ...string) {
	t.Helper()
	dir := store.Dir(root)
	var rows mapRows
	if err := readMapCache(filepath.Join(dir, mapRowsFile), &rows); err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		i := slices.IndexFunc(rows.Files, func(r mapRow) bool { return r.Path == p && len(r.Defs) > 0 })
		if i < 0 {
			t.Fatalf("no row with definitions for %s", p)
		}
		rows.Files[i].Defs[0].Text = rowMark
	}
	raw, err := encodeMapCache(&rows)
	if err != nil {
		t.Fatal(err)
	}
	if err := (mapCacheWrite{dir: dir, rows: raw}).write(); err != nil {
		t.Fatal(err)
	}
}

// markedRows is the paths whose rows in root's rows file carry markRows'
// mark.
func markedRows(t *testing.T, root string) map[string]bool {
	t.Helper()
	var rows mapRows
	if err := readMapCache(filepath.Join(store.Dir(root), mapRowsFile), &rows); err != nil {
		t.Fatal(err)
	}
	marked := map[string]bool{}
	for _, r := range rows.Files {
		for _, d := range r.Defs {
			if d.Text == rowMark {
				marked[r.Path] = true
			}
		}
	}
	return marked
}

// A changed framework manifest derives unchanged files again, so their
// definitions may change under the same content hash: no row survives it.
func TestMapGraphCacheFollowsTheManifests(t *testing.T) {
	_, root := mapCacheWorkspace(t)
	graphs(t, root)
	markRows(t, root, "use/u3.go")
	// What an index run records when a manifest's verdict changed.
	db, err := store.Open(store.Path(root), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *store.Tx) error {
		var sum summary.Summary
		if _, err := tx.Summary(&sum); err != nil {
			return err
		}
		sum.ManifestState += "\npackage.json express"
		return tx.SetSummary(sum)
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	fresh, cached, built := graphs(t, root)
	if !built || !bytes.Equal(fresh, cached) {
		t.Fatalf("after a manifest change the cached graph was not rebuilt (built %v) or differs from a fresh one", built)
	}
	if marked := markedRows(t, root); len(marked) > 0 {
		t.Fatalf("rows kept across a manifest change: %v", marked)
	}
}
