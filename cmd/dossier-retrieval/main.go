// Command dossier-retrieval measures search quality the CodeSearchNet way
// on code nobody here wrote: it copies source trees (by default, for -lang
// go, the standard library's net and encoding trees; see python.go and
// javascript.go for the other languages), takes every function with a doc
// comment or docstring, removes the comment from the copy (keeping line
// numbers), and uses the comment's first sentence (without the function's
// name) as the query and the function as the answer. It indexes the copy
// with the dossier binary, runs every query in each mode through
// `dossier search --json` (one process per mode, queries on stdin) and
// reports MRR@10, recall@1 and recall@10, and latency percentiles.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// item is one query and its answer.
type item struct {
	Query string `json:"query"`
	Path  string `json:"path"`
	Func  string `json:"func"`
	Start int    `json:"start_line"`
	End   int    `json:"end_line"`
}

type result struct {
	Path      string   `json:"path"`
	StartLine int      `json:"start_line"`
	EndLine   int      `json:"end_line"`
	Symbol    string   `json:"symbol"`
	Paths     []string `json:"paths"`
	Similar   []string `json:"similar"`
}

// answers reports whether r is it's answer: a chunk of its file over its
// lines, or a copy of its function folded with the answer's file (the
// identical or near-duplicate files a result lists, see `dossier search`),
// of the same name. strict counts only the first kind.
func (r result) answers(it item, strict bool) bool {
	if r.Path == it.Path && r.StartLine <= it.End && it.Start <= r.EndLine {
		return true
	}
	if strict || r.Path == it.Path || it.Func == "" {
		return false
	}
	name := r.Symbol[strings.LastIndexByte(r.Symbol, '.')+1:]
	return name == it.Func && (slices.Contains(r.Paths, it.Path) || slices.Contains(r.Similar, it.Path))
}

type response struct {
	Query   string   `json:"query"`
	Results []result `json:"results"`
	Error   string   `json:"error"`
	Debug   struct {
		LatencyMS float64 `json:"latency_ms"`
	} `json:"debug"`
}

// Score is one mode's figures. A result counts as the answer when it is
// the answer's chunk or lists the answer's file as a folded copy of the
// same function (see result.answers); MRR10Strict counts only the first.
type Score struct {
	Mode        string  `json:"mode"`
	Queries     int     `json:"queries"`
	MRR10       float64 `json:"mrr_at_10"`
	MRR10Strict float64 `json:"mrr_at_10_strict"`
	R1          float64 `json:"recall_at_1"`
	R10         float64 `json:"recall_at_10"`
	P50         float64 `json:"latency_p50_ms"`
	P95         float64 `json:"latency_p95_ms"`
}

// language is how one language's trees are turned into a query set.
type language struct {
	// defaults returns the default source trees; it may fetch them into
	// scratch (a temporary directory removed at exit). An error means the
	// language cannot be measured on this machine: it is reported and the
	// run is skipped, not failed.
	defaults func(scratch string) ([]string, error)
	// code reports whether strip applies to the file (by name).
	code func(name string) bool
	// test reports whether a code file (path relative to the workspace) is
	// a test, copied but never a query source.
	test func(rel string) bool
	// skipDir reports whether a directory is left out of the copy.
	skipDir func(name string) bool
	// codeOnly copies only code files (Go, as this harness always did);
	// otherwise every regular file of the tree is copied.
	codeOnly bool
	// strip blanks the documentation of documented functions (keeping
	// every line and every byte offset within a line) and returns the
	// queries made from it.
	strip func(src []byte, rel string) ([]byte, []item)
}

var languages = map[string]*language{"go": goLang, "python": pythonLang, "js": jsLang}

// cleanups run before the process exits, also on errors.
var cleanups []func()

func main() {
	var (
		bin     = flag.String("dossier", "bin/dossier", "path of the dossier binary")
		langArg = flag.String("lang", "go", "language of the query set: go, python or js")
		srcs    = flag.String("src", "", "comma-separated source trees to copy (default: per -lang, see the package doc)")
		max     = flag.Int("max", 1500, "use at most this many queries (evenly spread; 0 = all)")
		modes   = flag.String("modes", "text,vector,hybrid", "modes to measure")
		asJSON  = flag.Bool("json", false, "print the scores as JSON")
		keep    = flag.Bool("keep", false, "keep the temporary copy and print its path")
		dumpSet = flag.String("dump", "", "write the query set (JSON lines) to this file")
		reuse   = flag.String("reuse", "", "measure an existing indexed copy (from -keep) with the set from -dump, without copying or indexing")
	)
	flag.Parse()
	defer runCleanups()
	if *reuse != "" {
		items, err := load(*dumpSet)
		check(err)
		report(*bin, *reuse, *modes, items, *asJSON)
		return
	}
	lg := languages[*langArg]
	if lg == nil {
		check(fmt.Errorf("unknown -lang %q (want go, python or js)", *langArg))
	}
	var trees []string
	if *srcs != "" {
		trees = strings.Split(*srcs, ",")
	} else {
		scratch, err := os.MkdirTemp("", "dossier-retrieval-src-")
		check(err)
		cleanups = append(cleanups, func() { os.RemoveAll(scratch) })
		trees, err = lg.defaults(scratch)
		if err != nil {
			fmt.Fprintf(os.Stderr, "dossier-retrieval: skipping -lang %s: %v\n", *langArg, err)
			return
		}
	}
	tmp, err := os.MkdirTemp("", "dossier-retrieval-")
	check(err)
	if !*keep {
		cleanups = append(cleanups, func() { os.RemoveAll(tmp) })
	} else {
		fmt.Println("copy kept at", tmp)
	}
	var items []item
	used := map[string]bool{}
	for _, src := range trees {
		prefix := filepath.Base(src)
		for i := 2; used[prefix]; i++ {
			prefix = fmt.Sprintf("%s-%d", filepath.Base(src), i)
		}
		used[prefix] = true
		its, err := prepare(lg, src, filepath.Join(tmp, prefix), prefix)
		check(err)
		items = append(items, its...)
	}
	all := len(items)
	items = spread(items, *max)
	if *dumpSet != "" {
		var b bytes.Buffer
		for _, it := range items {
			line, _ := json.Marshal(it)
			b.Write(append(line, '\n'))
		}
		check(os.WriteFile(*dumpSet, b.Bytes(), 0o644))
	}
	fmt.Printf("%s: %d queries (of %d) from %s (%d CPUs)\n", *langArg, len(items), all, strings.Join(trees, ","), runtime.NumCPU())
	out, err := exec.Command(*bin, "index", "--root", tmp).CombinedOutput()
	if err != nil {
		check(fmt.Errorf("index failed: %v\n%s", err, out))
	}
	report(*bin, tmp, *modes, items, *asJSON)
}

// prepare copies the tree src to dst (test files too, as they are part of
// a real tree), strips the documentation of documented functions in
// non-test code files, and returns those functions as items with paths
// relative to the workspace (prefix/...).
func prepare(lg *language, src, dst, prefix string) ([]item, error) {
	var items []item
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if p != src && lg.skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		code := lg.code(d.Name())
		if !d.Type().IsRegular() || (lg.codeOnly && !code) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		relPath := filepath.ToSlash(filepath.Join(prefix, rel))
		if code && !lg.test(relPath) {
			var its []item
			data, its = lg.strip(data, relPath)
			items = append(items, its...)
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	return items, err
}

// blank overwrites src[start:end] with spaces, keeping newlines (and so
// every line number and every byte offset within a line).
func blank(src []byte, start, end int) {
	for i := start; i < end; i++ {
		if src[i] != '\n' {
			src[i] = ' '
		}
	}
}

// paragraph is the first paragraph of text: the lines up to the first
// blank line after some content.
func paragraph(text string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(out) > 0 {
				break
			}
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// parse parses src with a tree-sitter grammar (nil if it cannot).
func parse(l *sitter.Language, src []byte) *sitter.Tree {
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(l)
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		return nil
	}
	return tree
}

// walk calls f on n and every node below it, depth first.
func walk(n *sitter.Node, f func(*sitter.Node)) {
	f(n)
	for i := 0; i < int(n.NamedChildCount()); i++ {
		walk(n.NamedChild(i), f)
	}
}

// load reads a query set written by -dump.
func load(path string) ([]item, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var items []item
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var it item
		if err := json.Unmarshal(line, &it); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		items = append(items, it)
	}
	return items, nil
}

func report(bin, root, modes string, items []item, asJSON bool) {
	var scores []Score
	for _, mode := range strings.Split(modes, ",") {
		s, err := measure(bin, root, mode, items)
		check(err)
		scores = append(scores, s)
	}
	if asJSON {
		check(json.NewEncoder(os.Stdout).Encode(scores))
		return
	}
	fmt.Printf("%-8s %7s %7s %7s %7s %7s %9s %9s\n", "mode", "queries", "MRR@10", "strict", "R@1", "R@10", "p50 ms", "p95 ms")
	for _, s := range scores {
		fmt.Printf("%-8s %7d %7.3f %7.3f %7.3f %7.3f %9.2f %9.2f\n", s.Mode, s.Queries, s.MRR10, s.MRR10Strict, s.R1, s.R10, s.P50, s.P95)
	}
}

// spread keeps n items evenly spread over the list (a stable sample).
func spread(items []item, n int) []item {
	if n <= 0 || len(items) <= n {
		return items
	}
	out := make([]item, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, items[i*len(items)/n])
	}
	return out
}

func measure(bin, root, mode string, items []item) (Score, error) {
	cmd := exec.Command(bin, "search", "--root", root, "--json", "--mode", mode, "-k", "10", "--min-score", "0")
	var in bytes.Buffer
	for _, it := range items {
		in.WriteString(it.Query + "\n")
	}
	cmd.Stdin = &in
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return Score{}, fmt.Errorf("search --mode %s: %w", mode, err)
	}
	s := Score{Mode: mode}
	var lat []float64
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	i := 0
	for sc.Scan() {
		if i >= len(items) {
			return s, fmt.Errorf("more answers than queries")
		}
		var r response
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return s, err
		}
		if r.Error != "" {
			return s, fmt.Errorf("query %q: %s", r.Query, r.Error)
		}
		it := items[i]
		i++
		lat = append(lat, r.Debug.LatencyMS)
		for rank, res := range r.Results {
			if res.answers(it, true) {
				s.MRR10Strict += 1 / float64(rank+1)
				break
			}
		}
		for rank, res := range r.Results {
			if res.answers(it, false) {
				s.MRR10 += 1 / float64(rank+1)
				if rank == 0 {
					s.R1++
				}
				s.R10++
				break
			}
		}
	}
	if i != len(items) {
		return s, fmt.Errorf("%d answers for %d queries", i, len(items))
	}
	n := float64(len(items))
	s.Queries = len(items)
	s.MRR10, s.MRR10Strict, s.R1, s.R10 = s.MRR10/n, s.MRR10Strict/n, s.R1/n, s.R10/n
	slices.Sort(lat)
	s.P50, s.P95 = pct(lat, 0.50), pct(lat, 0.95)
	return s, nil
}

func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}

func runCleanups() {
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	cleanups = nil
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "dossier-retrieval:", err)
		runCleanups()
		os.Exit(1)
	}
}
