package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchQueries are searches an agent makes in the Go source tree.
var benchQueries = []string{
	"parse an HTTP request header", "goroutine preemption signal", "Mutex Lock starvation mode",
	"ReadDir sorted directory entries", "json Unmarshal into interface", "TLS handshake client hello",
	"garbage collector write barrier", "strconv ParseFloat", "context deadline exceeded", "bufio Scanner token too long",
}

// benchWords vary the queries, so no call is answered from the search
// engine's cache of recent results.
var benchWords = []string{"buffer", "error", "reader", "writer", "len", "close", "timeout", "cache", "index", "count",
	"slice", "map", "string", "byte", "file", "path", "size", "lock", "state", "value"}

// BenchmarkMCPSearchStdio is the latency of a search tool call as an agent
// sees it: `dossier mcp` in its own process, over stdio, on the workspace
// in DOSSIER_MCP_BENCH_ROOT (indexed beforehand; `make bench-mcp` uses a
// copy of $(go env GOROOT)/src). It reports the calls' p50 and p95.
func BenchmarkMCPSearchStdio(b *testing.B) {
	root := os.Getenv("DOSSIER_MCP_BENCH_ROOT")
	if root == "" {
		b.Skip("set DOSSIER_MCP_BENCH_ROOT to an indexed workspace (make bench-mcp does)")
	}
	ctx := context.Background()
	logPath := filepath.Join(b.TempDir(), "debug.log")
	tr := &sdk.CommandTransport{Command: dossier("mcp", "--root", root, "--read-only", "--debug-log", logPath)}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	search := func(q string) time.Duration {
		start := time.Now()
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": q, "k": 10}})
		if err != nil || res.IsError {
			b.Fatalf("search %q: %v %v", q, err, res)
		}
		return time.Since(start)
	}
	// The server first brings the index up to date (a pass over every
	// file); the figure is for the calls after it, as an agent's session
	// mostly is. Its log says when the pass is done.
	for {
		if raw, _ := os.ReadFile(logPath); strings.Contains(string(raw), "mcp index:") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, q := range benchQueries { // warm: the first call loads the snapshot
		search(q)
	}
	var took []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		q := benchQueries[i%len(benchQueries)] + " " + benchWords[(i/len(benchQueries))%len(benchWords)]
		took = append(took, search(q))
	}
	b.StopTimer()
	slices.Sort(took)
	at := func(p float64) float64 {
		return float64(took[min(len(took)-1, int(p*float64(len(took))))].Microseconds()) / 1000
	}
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.95), "p95-ms")
}
