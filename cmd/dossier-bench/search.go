package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/cmd/internal/docquery"
)

// Search speed targets on the index of the whole tree (issue 3).
const (
	targetHybridP95 = 50.0  // ms
	targetSymbolP95 = 5.0   // ms
	targetRegexMax  = 300.0 // ms
	targetSearchRSS = 600.0 // MB
)

// SearchMeasurement is one mode's stream of queries.
type SearchMeasurement struct {
	Mode     string  `json:"mode"`
	Queries  int     `json:"queries"`
	P50      float64 `json:"latency_p50_ms"`
	P95      float64 `json:"latency_p95_ms"`
	Max      float64 `json:"latency_max_ms"`
	First    float64 `json:"latency_first_ms"` // includes loading the Engine's caches
	Wall     float64 `json:"wall_seconds"`
	MaxRSSMB float64 `json:"peak_rss_mb"`
}

// regexPatterns are searched over the whole tree: common and rare
// literals, a pattern with no literal to filter by, and one that matches
// nothing, so every file is read.
var regexPatterns = []string{
	`TODO|FIXME`, `func \(\w+ \*Server\) `, `errors\.New\("[^"]*timeout`, `x509`,
	`handshake failure`, `[a-z]+_[a-z]+_[a-z]+\(`, `zqxjkvw`,
}

// errNoQueries is searchPhase's error for a tree without documented Go
// functions to make queries from (another language's tree, measured for
// its index only).
var errNoQueries = errors.New("no documented Go functions to make queries from")

// searchPhase measures queries against the index of root: descriptions
// made from the tree's doc comments (hybrid, text, vector), the documented
// functions' names (symbol) and regexPatterns (regex), each mode as one
// `dossier search --json` process reading its queries from stdin, as
// scripts and the workbench use it.
func searchPhase(ctx context.Context, bin, root string, n int) ([]SearchMeasurement, error) {
	descs, names, err := docQueries(root, n)
	if err != nil {
		return nil, err
	}
	if len(descs) == 0 {
		return nil, fmt.Errorf("%w under %s", errNoQueries, root)
	}
	var out []SearchMeasurement
	for _, run := range []struct {
		mode    string
		queries []string
		k       string
	}{
		{"hybrid", descs, "10"}, {"text", descs, "10"}, {"vector", descs, "10"},
		{"symbol", names, "10"}, {"regex", regexPatterns, "100"},
	} {
		in := []byte(strings.Join(run.queries, "\n") + "\n")
		m, output, err := measure(ctx, "", in, bin, "search", "--root", root, "--json", "--mode", run.mode, "-k", run.k, "--min-score", "0")
		if err != nil {
			return nil, fmt.Errorf("search --mode %s: %v: %s", run.mode, err, output.tail())
		}
		sm := SearchMeasurement{Mode: run.mode, Wall: m.Wall, MaxRSSMB: m.MaxRSSMB}
		var lat []float64
		sc := bufio.NewScanner(strings.NewReader(output.stdout))
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			var r struct {
				Error string `json:"error"`
				Debug struct {
					LatencyMS float64 `json:"latency_ms"`
				} `json:"debug"`
			}
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, fmt.Errorf("search --mode %s: %w", run.mode, err)
			}
			if r.Error != "" {
				return nil, fmt.Errorf("search --mode %s: %s", run.mode, r.Error)
			}
			lat = append(lat, r.Debug.LatencyMS)
		}
		if len(lat) != len(run.queries) {
			return nil, fmt.Errorf("search --mode %s: %d answers for %d queries", run.mode, len(lat), len(run.queries))
		}
		sm.Queries, sm.First = len(lat), lat[0]
		slices.Sort(lat)
		sm.P50, sm.P95, sm.Max = percentile(lat, 0.50), percentile(lat, 0.95), lat[len(lat)-1]
		out = append(out, sm)
	}
	return out, nil
}

func percentile(sorted []float64, p float64) float64 {
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

// docQueries makes up to n descriptions from the doc comments of functions
// under root (their first sentence, without the name) and their names,
// from files spread over the whole tree.
func docQueries(root string, n int) (descs, names []string, err error) {
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || d.Name() == ".dossier"):
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go"):
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// Every step-th file: a few per package, all over the tree; passes
	// that start further on when too few of those files have a function
	// to ask for (Go's tree gave 8 of 20). Each query once: a repeat would
	// be answered from the result cache.
	seenDesc, seenName := map[string]bool{}, map[string]bool{}
	step := max(1, len(files)/(n/2+1))
	var order []int
	for start := 0; start < step; start += max(1, step/8) {
		for i := start; i < len(files); i += step {
			order = append(order, i)
		}
	}
	for _, i := range order {
		if len(descs) >= n {
			break
		}
		src, err := os.ReadFile(files[i])
		if err != nil {
			return nil, nil, err
		}
		f, err := parser.ParseFile(token.NewFileSet(), files[i], src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue // the tree has deliberately broken files
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Doc == nil || !fn.Name.IsExported() {
				continue
			}
			q := docquery.FirstSentence(fn.Doc.Text(), fn.Name.Name)
			if !docquery.Enough(q) || len(descs) >= n || seenDesc[q] || seenName[fn.Name.Name] {
				continue
			}
			seenDesc[q], seenName[fn.Name.Name] = true, true
			descs, names = append(descs, q), append(names, fn.Name.Name)
		}
	}
	return descs, names, nil
}

func searchChecks(ms []SearchMeasurement) []Check {
	var cs []Check
	for _, m := range ms {
		switch m.Mode {
		case "hybrid":
			cs = append(cs,
				Check{Name: "hybrid query p95 (ms)", Value: m.P95, Target: fmt.Sprintf("<= %g", targetHybridP95), Pass: m.P95 <= targetHybridP95},
				Check{Name: "search process peak RSS (MB)", Value: m.MaxRSSMB, Target: fmt.Sprintf("< %g", targetSearchRSS), Pass: m.MaxRSSMB < targetSearchRSS})
		case "symbol":
			cs = append(cs, Check{Name: "symbol lookup p95 (ms)", Value: m.P95, Target: fmt.Sprintf("<= %g", targetSymbolP95), Pass: m.P95 <= targetSymbolP95})
		case "regex":
			cs = append(cs, Check{Name: "regex over the tree, slowest (ms)", Value: m.Max, Target: fmt.Sprintf("<= %g", targetRegexMax), Pass: m.Max <= targetRegexMax})
		}
	}
	return cs
}
