package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// Cold-start targets (issue 18), as fractions of ripgrep's median for one
// `rg -i WORD` over the same tree, or absolute.
const (
	coldStatsVsRg  = 0.1  // dossier stats
	coldNoopVsRg   = 0.6  // a no-op re-index
	coldHybridVsRg = 0.3  // p95 of one-shot hybrid searches
	coldHybridRSS  = 60.0 // MB, peak of one hybrid search process
	coldModeP95    = 20.0 // ms, one-shot text and symbol searches
	coldOneFileAdd = 0.1  // s, one changed file over the no-op
)

// rgWords are searched by ripgrep, case-insensitive, over the whole tree.
var rgWords = []string{"flush", "gzip", "deadline", "handshake", "marshal"}

// coldRow is one figure of the cold report.
type coldRow struct {
	name            string
	p50, p95, rss   float64 // ms, ms, MB
	target, verdict string
}

// runCold measures what every new process pays, each figure a separate
// process as a shell, script or agent runs it: ripgrep over the tree,
// `dossier stats`, a no-op and a one-file re-index, and one-shot searches
// in hybrid, text and symbol modes, on an indexed copy of the tree.
func runCold(ctx context.Context, c config, bin string, out io.Writer) error {
	tmp, err := os.MkdirTemp("", "dossier-bench-cold-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	root := filepath.Join(tmp, "src")
	if _, err := copyTree(ctx, c.src, root); err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	syscall.Sync()
	fmt.Fprintf(out, "indexing a copy of %s (not timed) ...\n", c.src)
	if _, err := runDossier(ctx, bin, root); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	n := max(c.runs, 5)
	times := func(name string, args ...string) (walls []float64, rss float64, err error) {
		for range n {
			m, o, err := measure(ctx, root, nil, name, args...)
			if err != nil {
				if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 { // rg exits 1 on no match
					return nil, 0, fmt.Errorf("%s %v: %v: %s", name, args, err, o.tail())
				}
			}
			walls = append(walls, m.Wall*1000)
			rss = max(rss, m.MaxRSSMB)
		}
		return walls, rss, nil
	}
	var rows []coldRow
	rgMed := 0.0
	if _, err := exec.LookPath("rg"); err != nil {
		fmt.Fprintln(out, "ripgrep (rg) not found on PATH: the ratios are left out")
	} else {
		var all []float64
		var rss float64
		for _, w := range rgWords {
			walls, r, err := times("rg", "-i", w, ".")
			if err != nil {
				return err
			}
			all, rss = append(all, walls...), max(rss, r)
		}
		rgMed = median(all)
		rows = append(rows, coldRow{name: "rg -i WORD (5 words)", p50: rgMed, p95: pct(all, 0.95), rss: rss})
	}
	add := func(name string, walls []float64, rss float64, target string, pass bool) {
		v := "-"
		if target != "" {
			v = map[bool]string{true: "ok", false: "MISSED"}[pass]
		}
		rows = append(rows, coldRow{name: name, p50: median(walls), p95: pct(walls, 0.95), rss: rss, target: target, verdict: v})
	}
	walls, rss, err := times(bin, "stats")
	if err != nil {
		return err
	}
	add("dossier stats", walls, rss, fmt.Sprintf("<= %.1fx rg = %.0f ms", coldStatsVsRg, coldStatsVsRg*rgMed), rgMed > 0 && median(walls) <= coldStatsVsRg*rgMed)
	noop, rss, err := times(bin, "index")
	if err != nil {
		return err
	}
	add("dossier index (no-op)", noop, rss, fmt.Sprintf("<= %.1fx rg = %.0f ms", coldNoopVsRg, coldNoopVsRg*rgMed), rgMed > 0 && median(noop) <= coldNoopVsRg*rgMed)
	touch, leader, err := pickTouchFile(root)
	if err != nil {
		return err
	}
	var one []float64
	for i := range n {
		if err := appendLine(touch, fmt.Sprintf("\n%s cold bench %d %d\n", leader, i, time.Now().UnixNano())); err != nil {
			return err
		}
		m, o, err := measure(ctx, root, nil, bin, "index")
		if err != nil {
			return fmt.Errorf("index one file: %v: %s", err, o.tail())
		}
		one = append(one, m.Wall*1000)
		rss = max(rss, m.MaxRSSMB)
	}
	add("dossier index (one file)", one, rss, fmt.Sprintf("<= no-op + %.0f ms", coldOneFileAdd*1000), median(one)-median(noop) <= coldOneFileAdd*1000)

	descs, names, err := docQueries(root, 20)
	if err != nil {
		return err
	}
	modes := []string{"hybrid", "text", "symbol"}
	if len(descs) == 0 {
		fmt.Fprintf(out, "%v under %s: the one-shot searches are left out\n", errNoQueries, c.src)
		modes = nil
	}
	for _, mode := range modes {
		qs := descs
		if mode == "symbol" {
			qs = names
		}
		var walls []float64
		var rss float64
		for _, q := range qs {
			m, o, err := measure(ctx, root, nil, bin, "search", "--mode", mode, q)
			if err != nil {
				return fmt.Errorf("search %s %q: %v: %s", mode, q, err, o.tail())
			}
			walls, rss = append(walls, m.Wall*1000), max(rss, m.MaxRSSMB)
		}
		if mode == "hybrid" {
			lim := coldHybridVsRg * rgMed
			add(fmt.Sprintf("search hybrid (%d queries)", len(qs)), walls, rss, fmt.Sprintf("p95 <= %.1fx rg = %.0f ms, <= %.0f MB", coldHybridVsRg, lim, coldHybridRSS),
				rgMed > 0 && pct(walls, 0.95) <= lim && rss <= coldHybridRSS)
			continue
		}
		add(fmt.Sprintf("search %s (%d queries)", mode, len(qs)), walls, rss, fmt.Sprintf("p95 <= %.0f ms", coldModeP95), pct(walls, 0.95) <= coldModeP95)
	}
	if c.repomix {
		if reason := repomixWarmup(ctx, tmp); reason != "" {
			fmt.Fprintln(out, "repomix unavailable:", reason)
		} else {
			var walls []float64
			var rss float64
			for range min(n, 3) {
				m, reason := runRepomix(ctx, root, filepath.Join(tmp, "repomix-output.xml"))
				if reason != "" {
					fmt.Fprintln(out, "repomix failed:", reason)
					break
				}
				walls, rss = append(walls, m.Wall*1000), max(rss, m.MaxRSSMB)
			}
			if len(walls) > 0 {
				add("repomix pack (for scale)", walls, rss, "", false)
			}
		}
	}
	var load [3]float64
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Sscan(string(b), &load[0], &load[1], &load[2])
	}
	fmt.Fprintf(out, "\ncold start on %s (%d runs each; load average %.2f %.2f %.2f)\n", c.src, n, load[0], load[1], load[2])
	fmt.Fprintf(out, "%-30s %10s %10s %9s  %-34s %s\n", "", "p50 ms", "p95 ms", "peak MB", "target", "")
	for _, r := range rows {
		fmt.Fprintf(out, "%-30s %10.1f %10.1f %9.1f  %-34s %s\n", r.name, r.p50, r.p95, r.rss, r.target, r.verdict)
	}
	return nil
}

// pct is the p-th percentile (nearest rank) of v.
func pct(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return percentile(s, p)
}
