package search

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"
)

// The query benchmarks search an index built beforehand, named by
// $DOSSIER_BENCH_INDEX (a workspace root, e.g. a copy of $(go env
// GOROOT)/src after `dossier index`); they are skipped without one. One
// Engine answers every query, as in the workbench or a --json stream, with
// its result cache emptied before each, so every query is computed:
//
//	DOSSIER_BENCH_INDEX=/tmp/goroot go test -run '^$' -bench Query ./index/search

// benchQueries are a few kinds of query: a paraphrase, names, words with
// no match in the index.
var benchQueries = []string{
	"parse a url and return its query parameters",
	"read a line from a buffered reader",
	"compress data with gzip",
	"http request timeout",
	"sort a slice of strings",
	"ParseDuration",
	"close the connection when the context is cancelled",
	"xyzzyplugh",
}

// benchNames are names a symbol search looks for, as an editor or agent
// asks: exact names of functions and types, one that many define.
var benchNames = []string{
	"ParseDuration", "FileInfoHeader", "Getenv", "NewReader", "Children",
	"ExpandEnv", "Marshal", "Flush",
}

func benchQuery(b *testing.B, mode Mode) {
	root := os.Getenv("DOSSIER_BENCH_INDEX")
	if root == "" {
		b.Skip("set DOSSIER_BENCH_INDEX to an indexed workspace")
	}
	e := NewEngine()
	ctx := context.Background()
	q := Query{Mode: mode, MinScore: DefaultMinScore}
	// The first query loads what the Engine keeps (vectors, symbol names).
	q.Text = benchQueries[0]
	if _, err := e.SearchRoot(ctx, root, q); err != nil {
		b.Fatal(err)
	}
	i := 0
	cpu0 := cpuTime()
	for b.Loop() {
		e.results = nil
		q.Text = benchQueries[i%len(benchQueries)]
		i++
		if _, err := e.SearchRoot(ctx, root, q); err != nil {
			b.Fatal(err)
		}
	}
	// The process's CPU time per query: on a shared machine, wall time
	// mostly measures the neighbours.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func BenchmarkQueryHybrid(b *testing.B) { benchQuery(b, Hybrid) }
func BenchmarkQueryText(b *testing.B)   { benchQuery(b, Text) }
func BenchmarkQueryVector(b *testing.B) { benchQuery(b, Vector) }
func BenchmarkQuerySymbol(b *testing.B) { benchQuery(b, Symbol) }

// BenchmarkQueryHybridFresh answers each query with a new Engine, as a
// `dossier search` process does: nothing is kept from one query to the
// next. With oneShot the vector entries are scanned where they lie in the
// index file; without, they are first copied for later queries, which a
// process that answers one never makes.
func BenchmarkQueryHybridFresh(b *testing.B) {
	benchFresh(b, Hybrid)
}

// BenchmarkQueryTextFresh and BenchmarkQuerySymbolFresh answer each query
// of their mode with a new one-shot Engine, as `dossier search --mode text`
// and `--mode symbol` processes do.
func BenchmarkQueryTextFresh(b *testing.B)   { benchFresh(b, Text) }
func BenchmarkQuerySymbolFresh(b *testing.B) { benchFresh(b, Symbol) }

func benchFresh(b *testing.B, mode Mode) {
	for _, oneShot := range []bool{false, true} {
		name := "copy"
		if oneShot {
			name = "in-place"
		}
		b.Run(name, func(b *testing.B) {
			root := os.Getenv("DOSSIER_BENCH_INDEX")
			if root == "" {
				b.Skip("set DOSSIER_BENCH_INDEX to an indexed workspace")
			}
			ctx := context.Background()
			i := 0
			cpu0 := cpuTime()
			for b.Loop() {
				e := NewEngine()
				if oneShot {
					e.OneShot()
				}
				qs := benchQueries
				if mode == Symbol {
					qs = benchNames
				}
				q := Query{Text: qs[i%len(qs)], Mode: mode, MinScore: DefaultMinScore}
				i++
				if _, err := e.SearchRoot(ctx, root, q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
