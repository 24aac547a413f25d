package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

const (
	repomixPkg = "repomix@1.14"
	touchFile  = "fmt/print.go" // the file the one-file run changes, when the tree has it
	// searchQueries is how many descriptions (and names) the search phase asks.
	searchQueries = 500
	targetWall    = 0.5 // dossier/repomix, full index wall time
	targetRSS     = 0.5 // dossier/repomix, full index peak RSS
	targetNoop    = 1.0 // seconds
)

type config struct {
	dossier string
	src     string
	repomix bool
	runs    int
	json    bool
	cold    bool
}

func main() {
	var c config
	flag.StringVar(&c.dossier, "dossier", "bin/dossier", "path of the dossier binary")
	flag.StringVar(&c.src, "src", "", "source tree to index (default: $(go env GOROOT)/src)")
	flag.BoolVar(&c.repomix, "repomix", true, "also run `npm exec "+repomixPkg+"` for the comparison")
	flag.IntVar(&c.runs, "runs", 1, "how many times to run each measurement")
	flag.BoolVar(&c.json, "json", false, "also print the results as one JSON object")
	flag.BoolVar(&c.cold, "cold", false, "measure one-shot processes instead (stats, no-op and one-file re-index, searches) beside ripgrep and repomix")
	flag.Parse()
	if flag.NArg() > 0 || c.runs < 1 {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, c, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "dossier-bench:", err)
		os.Exit(1)
	}
}

// Measurement is one timed run of one tool.
type Measurement struct {
	Tool  string  `json:"tool"`
	Run   int     `json:"run"`
	Phase string  `json:"phase"` // pack | full | noop | one-file
	Wall  float64 `json:"wall_seconds"`
	// MaxRSSMB is the kernel's peak RSS (ru_maxrss) of the largest single
	// process of the child's tree; it is the figure the targets use.
	MaxRSSMB float64 `json:"peak_rss_mb"`
	// TreeRSSMB is the largest sampled sum of the RSS of every process in
	// the child's process group, sampled every 20 ms (so a lower bound),
	// and never less than MaxRSSMB.
	TreeRSSMB float64  `json:"tree_rss_mb"`
	Summary   *Summary `json:"summary,omitempty"` // dossier's --json output
}

// Summary is the part of `dossier index --json` the report uses.
type Summary struct {
	Files     int            `json:"files"`
	Chunks    int            `json:"chunks"`
	Seconds   float64        `json:"seconds"`
	Indexed   int            `json:"indexed"`
	Unchanged int            `json:"unchanged"`
	Touched   int            `json:"touched"`
	Removed   int            `json:"removed"`
	Skipped   map[string]int `json:"skipped"`
	Errors    []string       `json:"errors,omitempty"`
}

// Check is one target's verdict.
type Check struct {
	Name   string  `json:"name"`
	Value  float64 `json:"value"`
	Target string  `json:"target"`
	Pass   bool    `json:"pass"`
}

// Report is everything the run measured.
type Report struct {
	Src          string              `json:"src"`
	CopyFiles    int                 `json:"copy_files"`
	CopyBytes    int64               `json:"copy_bytes"`
	CopySkipped  int                 `json:"copy_skipped_special"`
	CopySeconds  float64             `json:"copy_seconds"`
	Repomix      string              `json:"repomix"` // "ok", "skipped" or "unavailable (reason)"
	Measurements []Measurement       `json:"measurements"`
	Search       []SearchMeasurement `json:"search"`
	Checks       []Check             `json:"checks"`
	Warnings     []string            `json:"warnings,omitempty"`
}

func run(ctx context.Context, c config, out io.Writer) error {
	bin, err := filepath.Abs(c.dossier)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		return fmt.Errorf("dossier binary %s not found (build it with `make build`)", bin)
	}
	if c.src == "" {
		o, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w (pass -src)", err)
		}
		c.src = filepath.Join(strings.TrimSpace(string(o)), "src")
	}
	if c.cold {
		return runCold(ctx, c, bin, out)
	}
	rep := &Report{Src: c.src, Repomix: "skipped"}

	tmp, err := os.MkdirTemp("", "dossier-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dCopy, rCopy := filepath.Join(tmp, "dossier", "src"), filepath.Join(tmp, "repomix", "src")
	dsts := []string{dCopy}
	if c.repomix {
		dsts = append(dsts, rCopy)
	}
	fmt.Fprintf(out, "copying %s into %d temporary cop%s under %s ...\n", c.src, len(dsts), plural(len(dsts), "y", "ies"), tmp)
	start := time.Now()
	st, err := copyTree(ctx, c.src, dsts...)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	syscall.Sync() // so write-back of the copies does not land in a measurement
	rep.CopyFiles, rep.CopyBytes, rep.CopySkipped = st.files, st.bytes, st.skipped
	rep.CopySeconds = time.Since(start).Seconds()
	fmt.Fprintf(out, "copied %d files (%.1f MB) per copy in %.1fs; skipped %d special files\n",
		st.files, float64(st.bytes)/(1<<20), rep.CopySeconds, st.skipped)

	repomixOK := false
	if c.repomix {
		if reason := repomixWarmup(ctx, tmp); reason != "" {
			rep.Repomix = "unavailable (" + reason + ")"
			fmt.Fprintln(out, "repomix:", rep.Repomix)
		} else {
			repomixOK = true
			rep.Repomix = "ok"
		}
	}

	for r := 1; r <= c.runs; r++ {
		if repomixOK {
			m, reason := runRepomix(ctx, rCopy, filepath.Join(tmp, fmt.Sprintf("repomix-%d.xml", r)))
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if reason != "" {
				repomixOK = false
				rep.Repomix = "unavailable (" + reason + ")"
				fmt.Fprintln(out, "repomix:", rep.Repomix)
			} else {
				m.Run = r
				rep.Measurements = append(rep.Measurements, m)
				fmt.Fprintf(out, "repomix  run %d pack      %7.2fs %8.1f MB\n", r, m.Wall, m.MaxRSSMB)
			}
		}
		if err := os.RemoveAll(filepath.Join(dCopy, ".dossier")); err != nil {
			return err
		}
		touch, leader, err := pickTouchFile(dCopy)
		if err != nil {
			return err
		}
		for _, phase := range []string{"full", "noop", "one-file"} {
			if phase == "one-file" {
				if err := appendLine(touch, "\n"+leader+" bench touch\n"); err != nil {
					return err
				}
			}
			m, err := runDossier(ctx, bin, dCopy)
			if err != nil {
				return fmt.Errorf("dossier %s run %d: %w", phase, r, err)
			}
			m.Run, m.Phase = r, phase
			rep.Measurements = append(rep.Measurements, m)
			fmt.Fprintf(out, "dossier  run %d %-9s %7.2fs %8.1f MB\n", r, phase, m.Wall, m.MaxRSSMB)
			rep.Warnings = append(rep.Warnings, sanity(r, phase, m.Summary)...)
		}
	}
	fmt.Fprintf(out, "searching the index of the last run (%d descriptions, their names, %d patterns) ...\n", searchQueries, len(regexPatterns))
	switch rep.Search, err = searchPhase(ctx, bin, dCopy, searchQueries); {
	case errors.Is(err, errNoQueries):
		rep.Warnings = append(rep.Warnings, err.Error()+": the search phase was skipped")
	case err != nil:
		return fmt.Errorf("search: %w", err)
	}
	rep.Checks = append(checks(rep.Measurements), searchChecks(rep.Search)...)

	fmt.Fprintln(out)
	printTable(out, rep)
	printFigures(out, rep)
	if c.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			return err
		}
	}
	return nil
}

// repomixWarmup makes npm fetch the package before anything is timed, so the
// download is not part of repomix's figure. It returns why repomix cannot run.
func repomixWarmup(ctx context.Context, dir string) string {
	if _, err := exec.LookPath("npm"); err != nil {
		return "npm not found on PATH"
	}
	cmd := exec.CommandContext(ctx, "npm", "exec", "--yes", repomixPkg, "--", "--version")
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		return fmt.Sprintf("npm exec %s --version: %v: %s", repomixPkg, err, lastLine(buf.String()))
	}
	return ""
}

// runRepomix packs dir into outFile. A failure is a reason, not an error:
// the comparison is then reported as unavailable.
func runRepomix(ctx context.Context, dir, outFile string) (Measurement, string) {
	m, output, err := measure(ctx, dir, nil, "npm", "exec", "--yes", repomixPkg, "--", "--output", outFile, ".")
	m.Tool, m.Phase = "repomix", "pack"
	if err != nil {
		return m, fmt.Sprintf("%v: %s", err, output.tail())
	}
	if fi, err := os.Stat(outFile); err != nil || fi.Size() == 0 {
		return m, "no output file written: " + output.tail()
	}
	_ = os.Remove(outFile) // ~100 MB; not needed once measured
	return m, ""
}

func runDossier(ctx context.Context, bin, root string) (Measurement, error) {
	m, output, err := measure(ctx, "", nil, bin, "index", "--root", root, "--json")
	m.Tool = "dossier"
	if err != nil {
		return m, fmt.Errorf("%v: %s", err, output.tail())
	}
	var s Summary
	if err := json.Unmarshal([]byte(output.stdout), &s); err != nil {
		return m, fmt.Errorf("decode --json output: %w", err)
	}
	m.Summary = &s
	return m, nil
}

// sanity flags summaries that do not match what the phase did.
func sanity(r int, phase string, s *Summary) []string {
	var w []string
	add := func(f string, args ...any) {
		w = append(w, fmt.Sprintf("dossier run %d %s: ", r, phase)+fmt.Sprintf(f, args...))
	}
	switch phase {
	case "full":
		if s.Indexed+s.Touched != s.Files || s.Unchanged != 0 {
			add("indexed %d + touched %d, unchanged %d, for %d files", s.Indexed, s.Touched, s.Unchanged, s.Files)
		}
	case "noop":
		if s.Indexed+s.Touched+s.Removed != 0 {
			add("nothing changed, yet indexed %d, touched %d, removed %d", s.Indexed, s.Touched, s.Removed)
		}
	case "one-file":
		if s.Indexed != 1 || s.Touched+s.Removed != 0 {
			add("one file changed, yet indexed %d, touched %d, removed %d", s.Indexed, s.Touched, s.Removed)
		}
	}
	if len(s.Errors) > 0 {
		add("%d errors, first: %s", len(s.Errors), s.Errors[0])
	}
	return w
}

func checks(ms []Measurement) []Check {
	med := func(tool, phase string, f func(Measurement) float64) (float64, bool) {
		var v []float64
		for _, m := range ms {
			if m.Tool == tool && m.Phase == phase {
				v = append(v, f(m))
			}
		}
		return median(v), len(v) > 0
	}
	wall := func(m Measurement) float64 { return m.Wall }
	rss := func(m Measurement) float64 { return m.MaxRSSMB }
	var cs []Check
	dw, _ := med("dossier", "full", wall)
	dr, _ := med("dossier", "full", rss)
	if rw, ok := med("repomix", "pack", wall); ok {
		rr, _ := med("repomix", "pack", rss)
		cs = append(cs,
			Check{Name: "full index wall, dossier/repomix", Value: dw / rw, Target: fmt.Sprintf("<= %g", targetWall), Pass: dw/rw <= targetWall},
			Check{Name: "full index peak RSS, dossier/repomix", Value: dr / rr, Target: fmt.Sprintf("<= %g", targetRSS), Pass: dr/rr <= targetRSS})
	}
	nw, _ := med("dossier", "noop", wall)
	cs = append(cs, Check{Name: "no-op re-index wall (s)", Value: nw, Target: "< 1", Pass: nw < targetNoop})
	return cs
}

func printTable(out io.Writer, rep *Report) {
	fmt.Fprintf(out, "source: %s (%d files, %.1f MB copied; %d special files skipped)\n",
		rep.Src, rep.CopyFiles, float64(rep.CopyBytes)/(1<<20), rep.CopySkipped)
	fmt.Fprintf(out, "repomix: %s\n\n", rep.Repomix)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "tool\trun\tphase\twall s\tpeak RSS MB\ttree RSS MB\tfiles\tindexed\tunchanged\tself-reported s\t")
	for _, m := range rep.Measurements {
		files, indexed, unchanged, self := "-", "-", "-", "-"
		if s := m.Summary; s != nil {
			files, indexed, unchanged = fmt.Sprint(s.Files), fmt.Sprint(s.Indexed), fmt.Sprint(s.Unchanged)
			self = fmt.Sprintf("%.3f", s.Seconds)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%.3f\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t\n",
			m.Tool, m.Run, m.Phase, m.Wall, m.MaxRSSMB, m.TreeRSSMB, files, indexed, unchanged, self)
	}
	tw.Flush()
	fmt.Fprintln(out, "\npeak RSS = kernel ru_maxrss of the largest process in the child's tree (MB = 2^20 bytes);")
	fmt.Fprintln(out, "tree RSS = largest sampled sum over the child's process group (npm + node for repomix).")
	fmt.Fprintln(out, "one-file is the CLI figure (process start + walk); the < 100 ms target is for Update, see `go test -bench ReindexOneFile ./index`.")
	fmt.Fprintln(out)
	if len(rep.Search) > 0 {
		tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "search mode	queries	p50 ms	p95 ms	max ms	first ms	wall s	peak RSS MB	")
		for _, m := range rep.Search {
			fmt.Fprintf(tw, "%s	%d	%.2f	%.2f	%.2f	%.2f	%.2f	%.1f	\n", m.Mode, m.Queries, m.P50, m.P95, m.Max, m.First, m.Wall, m.MaxRSSMB)
		}
		tw.Flush()
		fmt.Fprintln(out, "latency is dossier's own (debug.latency_ms: opening the index and answering), per query of one streaming process;")
		fmt.Fprintln(out, "every query differs (a repeat would come from the result cache); first includes loading the caches.")
		fmt.Fprintln(out)
	}
	if len(rep.Checks) > 0 {
		fmt.Fprintln(out, "targets (index: median over runs):")
		for _, c := range rep.Checks {
			verdict := "FAIL"
			if c.Pass {
				verdict = "PASS"
			}
			fmt.Fprintf(out, "  %-38s %7.3f  (target %s)  %s\n", c.Name, c.Value, c.Target, verdict)
		}
	}
	if !hasPhase(rep.Measurements, "repomix") {
		fmt.Fprintln(out, "  (no repomix figures: the dossier/repomix ratios were not checked)")
	}
	for _, w := range rep.Warnings {
		fmt.Fprintln(out, "warning:", w)
	}
	fmt.Fprintln(out)
}

func hasPhase(ms []Measurement, tool string) bool {
	for _, m := range ms {
		if m.Tool == tool {
			return true
		}
	}
	return false
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// commentLeaders are the line-comment leaders of the languages a
// one-file run may change, by file extension: the line it appends is a
// comment, so the file still parses as it did.
var commentLeaders = map[string]string{
	".go": "//", ".js": "//", ".jsx": "//", ".ts": "//", ".tsx": "//", ".mjs": "//", ".cjs": "//",
	".java": "//", ".kt": "//", ".cs": "//", ".php": "//", ".rs": "//", ".c": "//", ".h": "//",
	".cc": "//", ".cpp": "//", ".swift": "//", ".scala": "//",
	".py": "#", ".rb": "#", ".sh": "#",
}

// pickTouchFile is the file the one-file run changes, and the leader of a
// line comment in its language: touchFile, or else the first source file
// of the tree (in walk order) in a language commentLeaders knows, outside
// hidden, vendor, node_modules and testdata directories.
func pickTouchFile(root string) (path, leader string, err error) {
	p := filepath.Join(root, filepath.FromSlash(touchFile))
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return p, commentLeaders[filepath.Ext(p)], nil
	}
	err = filepath.WalkDir(root, func(q string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || path != "":
			return err
		case d.IsDir() && q != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "vendor" || d.Name() == "node_modules" || d.Name() == "testdata"):
			return filepath.SkipDir
		case d.Type().IsRegular() && commentLeaders[filepath.Ext(q)] != "":
			path, leader = q, commentLeaders[filepath.Ext(q)]
			return filepath.SkipAll
		}
		return nil
	})
	if err == nil && path == "" {
		err = fmt.Errorf("no source file under %s to change for the one-file run (looked for %s)", root, strings.Join(slices.Sorted(maps.Keys(commentLeaders)), " "))
	}
	return path, leader, err
}

func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	return errors.Join(err, f.Close())
}

// lastLine is the last meaningful line of a command's output (npm's
// configuration warnings are not).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !strings.HasPrefix(l, "npm warn") {
			return l
		}
	}
	return "no output"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
