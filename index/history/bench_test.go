package history

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkSyncFull reads a repository's history from scratch (the first
// run, or a rewritten history): both git passes, the parse and the files
// written. DOSSIER_BENCH_ROOT names the repository (e.g. a clone of
// koel/koel); its .dossier/history is removed before each read.
func BenchmarkSyncFull(b *testing.B) {
	root := os.Getenv("DOSSIER_BENCH_ROOT")
	if root == "" {
		b.Skip("set DOSSIER_BENCH_ROOT to a git repository")
	}
	out, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Root: root, Head: strings.TrimSpace(string(out)), Depth: DefaultDepth, Window: DefaultWindow}
	for b.Loop() {
		b.StopTimer()
		os.RemoveAll(filepath.Join(root, filepath.FromSlash(Dir)))
		b.StartTimer()
		res, err := Sync(context.Background(), opts)
		if err != nil || !res.Full {
			b.Fatalf("%+v %v", res, err)
		}
		b.ReportMetric(float64(res.Read), "commits")
		b.ReportMetric(float64(res.Written), "files")
	}
}

// BenchmarkReadPasses times the two git passes alone.
func BenchmarkReadPasses(b *testing.B) {
	root := os.Getenv("DOSSIER_BENCH_ROOT")
	if root == "" {
		b.Skip("set DOSSIER_BENCH_ROOT to a git repository")
	}
	ctx := context.Background()
	b.Run("raw", func(b *testing.B) {
		for b.Loop() {
			if _, err := readCommits(ctx, root, "HEAD", DefaultWindow); err != nil {
				b.Fatal(err)
			}
		}
	})
	cs, err := readCommits(ctx, root, "HEAD", DefaultWindow)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("symbols", func(b *testing.B) {
		for b.Loop() {
			if _, err := symbolsOf(ctx, root, cs, 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
}
