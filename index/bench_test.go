package index

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

// The benchmarks index a copy of a large tree: $DOSSIER_BENCH_SRC, or
// $(go env GOROOT)/src by default. Each benchmark function runs once (b.Loop)
// and copies the tree once, into its b.TempDir.
//
//	go test -run '^$' -bench . -benchtime 3x ./index/

// benchTouch is the file BenchmarkReindexOneFile changes.
const benchTouch = "fmt/print.go"

func BenchmarkIndexFull(b *testing.B) {
	root := benchTree(b)
	files := 0
	for b.Loop() {
		b.StopTimer()
		if err := os.RemoveAll(store.Dir(root)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		ix := benchOpen(b, root)
		sum, err := ix.Run(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
		files += sum.Files
	}
	b.ReportMetric(float64(files)/b.Elapsed().Seconds(), "files/s")
}

func BenchmarkReindexNoop(b *testing.B) {
	root := benchTree(b)
	ix := benchOpen(b, root)
	defer ix.Close()
	ctx := context.Background()
	if _, err := ix.Run(ctx); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		sum, err := ix.Run(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if n := sum.Indexed + sum.Touched + sum.Removed; n != 0 {
			b.Fatalf("nothing changed, yet %d files were indexed, touched or removed", n)
		}
		b.StartTimer()
	}
}

func BenchmarkReindexOneFile(b *testing.B) {
	root := benchTree(b)
	path := filepath.Join(root, filepath.FromSlash(benchTouch))
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s is not in the tree: %v", benchTouch, err)
	}
	ix := benchOpen(b, root)
	defer ix.Close()
	ctx := context.Background()
	if _, err := ix.Run(ctx); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = fmt.Fprintf(f, "// bench iteration %d\n", i)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sum, err := ix.Update(ctx, []string{benchTouch})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if sum.Indexed != 1 {
			b.Fatalf("iteration %d: indexed %d files, want 1 (summary %+v)", i, sum.Indexed, sum)
		}
		b.StartTimer()
	}
}

// BenchmarkReindexOneFileRun changes one file and runs a whole re-index,
// as `dossier index` does: the walk tree's check and the one file.
func BenchmarkReindexOneFileRun(b *testing.B) {
	root := benchTree(b)
	path := filepath.Join(root, filepath.FromSlash(benchTouch))
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s is not in the tree: %v", benchTouch, err)
	}
	ix := benchOpen(b, root)
	defer ix.Close()
	ctx := context.Background()
	if _, err := ix.Run(ctx); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = fmt.Fprintf(f, "// bench iteration %d\n", i)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		sum, err := ix.Run(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if sum.Indexed != 1 {
			b.Fatalf("iteration %d: indexed %d files, want 1 (summary %+v)", i, sum.Indexed, sum)
		}
		b.StartTimer()
	}
}

func benchOpen(b *testing.B, root string) *Indexer {
	b.Helper()
	ix, err := Open(Options{Root: root})
	if err != nil {
		b.Fatal(err)
	}
	return ix
}

// benchTree copies the benchmark tree into a temporary directory and
// returns the copy's root. Only directories and regular files are copied.
func benchTree(b *testing.B) string {
	b.Helper()
	src := os.Getenv("DOSSIER_BENCH_SRC")
	if src == "" {
		goroot := runtime.GOROOT()
		if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
			goroot = strings.TrimSpace(string(out))
		}
		src = filepath.Join(goroot, "src")
	}
	if fi, err := os.Stat(src); err != nil || !fi.IsDir() {
		b.Skipf("no benchmark tree at %s (set DOSSIER_BENCH_SRC)", src)
	}
	dst := filepath.Join(b.TempDir(), "src")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir() && d.Name() == store.DirName && p != src:
			return filepath.SkipDir
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			return benchCopyFile(p, target)
		}
		return nil // symlinks and other special files
	})
	if err != nil {
		b.Fatalf("copy %s: %v", src, err)
	}
	return dst
}

func benchCopyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
