package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store/fsafe"
)

// TestSyncSkipsLargeBlobs proves a file with a version over the size cap
// costs its history no read of that version: git is never asked for its
// patch, so the bytes git writes stay far below the blob (issue 30: a
// 200 MB file cost the first index 775 MB), while its commits are still
// in its history and the other files keep their changed symbols.
func TestSyncSkipsLargeBlobs(t *testing.T) {
	r := newRepo(t)
	big := bigGo(2 << 20)
	r.write("big.go", big)
	r.write("small.go", "package a\n\nfunc Small() {}\n")
	r.commit("Add both")
	r.write("big.go", big+"func Last() {}\n")
	r.write("small.go", "package a\n\nfunc Small() { println() }\n")
	r.commit("Change both")
	head := r.git("rev-parse", "HEAD")
	dir := filepath.Join(r.dir, filepath.FromSlash(Dir))
	for _, tc := range []struct {
		max         int64
		under, over int64 // bounds of what git writes
	}{
		{max: 64 << 10, under: 64 << 10},
		{max: 0, over: 2 << 20}, // no cap: the patches hold the blob
	} {
		os.RemoveAll(dir)
		before := gitRead.Load()
		if _, err := Sync(context.Background(), Options{Root: r.dir, Head: head, Depth: 5, Window: 100, MaxFileSize: tc.max}); err != nil {
			t.Fatal(err)
		}
		read := gitRead.Load() - before
		if tc.under > 0 && read >= tc.under || read <= tc.over {
			t.Errorf("cap %d: git wrote %d bytes, want under %d, over %d", tc.max, read, tc.under, tc.over)
		}
		if h := r.history("big.go"); strings.Count(h, "## ") != 2 || strings.Contains(h, "- changed:") != (tc.max == 0) {
			t.Errorf("cap %d: big.go's history:\n%s", tc.max, h)
		}
		if h := r.history("small.go"); !strings.Contains(h, "- changed: Small") {
			t.Errorf("cap %d: small.go's history:\n%s", tc.max, h)
		}
	}
}

// TestSyncLongFileName proves a file name too long to take ".md" (255
// bytes) has its history written, named after its path's hash, read back
// by SourceOf, and that the next sync finds it current (issue 30: every
// run failed with `file name too long` and read the history again).
func TestSyncLongFileName(t *testing.T) {
	r := newRepo(t)
	long := "dir/" + strings.Repeat("n", 252) + ".go" // 255 bytes
	near := "dir/" + strings.Repeat("m", 249) + ".go" // 252: ".md" still fits
	r.write(long, "package a\n")
	r.write(near, "package a\n")
	r.commit("Add (long) names")
	if res := r.sync(5); res.Written != 2 {
		t.Fatalf("Sync = %+v, want 2 files written", res)
	}
	if f := File(near); f != Dir+"/"+near+".md" {
		t.Errorf("File(%q) = %q", near, f)
	}
	rel := File(long)
	if !strings.HasPrefix(rel, Dir+"/.dossier/") || len(filepath.Base(rel)) > maxName {
		t.Fatalf("File(long) = %q", rel)
	}
	h := r.history(long)
	if !strings.Contains(h, "Add (long) names") {
		t.Fatalf("the long name's history:\n%s", h)
	}
	if src, ok := SourceOf(rel, []byte(h)); !ok || src != long {
		t.Errorf("SourceOf = %q, %v", src, ok)
	}
	if src, ok := Source(rel); ok {
		t.Errorf("Source of a hashed name = %q", src)
	}
	if src, ok := SourceOf(rel, []byte(strings.Replace(h, long, long[:len(long)-1], 1))); ok {
		t.Errorf("SourceOf a file naming another path = %q", src)
	}
	if res := r.sync(5); !res.Unchanged {
		t.Errorf("the next sync: %+v, want nothing to do", res)
	}
}

// TestSyncRetriesUnwrittenFile proves a history file that cannot be
// written costs the next syncs that file alone, not the whole history
// again, and is written once it can be.
func TestSyncRetriesUnwrittenFile(t *testing.T) {
	r := newRepo(t)
	r.write("a.go", "package a\n")
	r.write("b.go", "package a\n")
	head := r.commit("First")
	// A directory where b.go's history file goes: its rename fails.
	blocker := filepath.Join(r.dir, filepath.FromSlash(File("b.go")))
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	sync := func() (Result, error) {
		return Sync(context.Background(), Options{Root: r.dir, Head: head, Depth: 5, Window: 100})
	}
	res, err := sync()
	if err == nil || !strings.Contains(err.Error(), "b.go.md") || res.Read != 1 || r.history("a.go") == "" {
		t.Fatalf("Sync = %+v, %v; want a.go written, an error naming b.go's file", res, err)
	}
	res, err = sync()
	if err == nil || res.Read != 0 || res.Full {
		t.Fatalf("again: %+v, %v; want the same error, no commit read", res, err)
	}
	os.RemoveAll(blocker)
	if res, err = sync(); err != nil || res.Read != 0 || res.Written != 1 || !strings.Contains(r.history("b.go"), "First") {
		t.Fatalf("once it can: %+v, %v; want b.go's file written, no commit read", res, err)
	}
	if res, err = sync(); err != nil || !res.Unchanged {
		t.Errorf("then: %+v, %v; want nothing to do", res, err)
	}
}

// TestSyncSweepsKilledWrites proves the temporary files a killed sync
// left under the history directory (today's .NAME.tmp-N and the older
// writer's .tmp-N) are removed by the next sync, and that one a live
// writer holds is not (issue 30: they stayed for good).
func TestSyncSweepsKilledWrites(t *testing.T) {
	r := newRepo(t)
	r.write("pkg/a.go", "package pkg\n")
	r.commit("Add a")
	r.sync(5)
	sub := filepath.Dir(filepath.Join(r.dir, filepath.FromSlash(File("pkg/a.go"))))
	left := []string{filepath.Join(sub, ".tmp-123"), filepath.Join(sub, ".a.go.md.tmp-456"), filepath.Join(r.dir, filepath.FromSlash(Dir), ".state.json.tmp-789")}
	for _, p := range left {
		if err := os.WriteFile(p, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A sync killed while it wrote them left no mark (Sync removes it
	// before it writes).
	if err := os.Remove(filepath.Join(r.dir, filepath.FromSlash(Dir), markFile)); err != nil {
		t.Fatal(err)
	}
	live, err := fsafe.CreateTemp(filepath.Join(sub, "b.go.md"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	r.write("pkg/a.go", "package pkg\n\nfunc A() {}\n")
	r.commit("Change a") // a new HEAD: the next sync reads
	r.sync(5)
	for _, p := range left {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is left after the next sync", p)
		}
	}
	if _, err := os.Lstat(live.Name()); err != nil {
		t.Errorf("a live writer's temporary file was removed: %v", err)
	}
}

// TestLargeBlobLeavesOutItsCommitOnly: a path is left out of the symbol
// pass only in the commit whose change of it is over the cap, so an
// incremental history (a sync after each commit) and a fresh one of the
// same HEAD agree: before, one large version of p.go left its changed
// symbols out of every commit a fresh read saw, while the incremental
// read of a later window kept them.
func TestLargeBlobLeavesOutItsCommitOnly(t *testing.T) {
	r := newRepo(t)
	big := bigGo(128 << 10)
	opts := func() Options {
		return Options{Root: r.dir, Head: r.git("rev-parse", "HEAD"), Depth: 5, Window: 100, MaxFileSize: 64 << 10}
	}
	dir := filepath.Join(r.dir, filepath.FromSlash(Dir))
	steps := []string{big, "package a\n\nfunc Small() {}\n", "package a\n\nfunc Small() {}\n\nfunc Third() {}\n"}
	for i, text := range steps {
		r.write("p.go", text)
		r.commit(fmt.Sprint("step ", i))
		if _, err := Sync(context.Background(), opts()); err != nil {
			t.Fatal(err)
		}
	}
	incremental := r.history("p.go")
	os.RemoveAll(dir)
	if _, err := Sync(context.Background(), opts()); err != nil {
		t.Fatal(err)
	}
	if fresh := r.history("p.go"); fresh != incremental {
		t.Errorf("incremental history:\n%s\nfresh history:\n%s", incremental, fresh)
	}
	if !strings.Contains(incremental, "- changed: Third") && !strings.Contains(incremental, ", Third") {
		t.Errorf("the last commit's symbols are missing:\n%s", incremental)
	}
}

// bigGo is Go source of at least n bytes, one small function a line.
func bigGo(n int) string {
	var b strings.Builder
	b.WriteString("package a\n\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "func F%d() int { return %d }\n", i, i)
	}
	return b.String()
}
