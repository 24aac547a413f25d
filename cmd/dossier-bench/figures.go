package main

import (
	"fmt"
	"io"
	"slices"
)

// printFigures prints the one table of figures README.md quotes, as
// Markdown: what a newcomer wants to know (a full index, against repomix
// for scale; a re-index with nothing to do; search) from this run's
// measurements, each a range over the runs. Paste it into README.md's
// Performance section after a `make bench`, so the figures there are
// always those of one run of one tool.
func printFigures(out io.Writer, rep *Report) {
	fmt.Fprintf(out, "README.md's table (%s, %d files):\n\n", rep.Src, rep.CopyFiles)
	fmt.Fprintln(out, "| what | figure |")
	fmt.Fprintln(out, "|---|---|")
	if w, rss, ok := spread(rep.Measurements, "dossier", "full"); ok {
		fmt.Fprintf(out, "| `dossier index`, full | %s s, %s MB peak RSS |\n", w, rss)
	}
	if w, rss, ok := spread(rep.Measurements, "repomix", "pack"); ok {
		fmt.Fprintf(out, "| repomix on the same tree, for scale | %s s, %s MB peak RSS |\n", w, rss)
	}
	if w, _, ok := spread(rep.Measurements, "dossier", "noop"); ok {
		fmt.Fprintf(out, "| `dossier index`, nothing changed | %s s |\n", w)
	}
	for _, m := range rep.Search {
		fmt.Fprintf(out, "| `dossier search --json`, one process, %s: p50 / p95 | %.1f / %.1f ms |\n", m.Mode, m.P50, m.P95)
	}
	fmt.Fprintln(out)
}

// spread is the range over the runs of a tool's phase: wall seconds and
// peak RSS, "min–max" (one figure when they agree); ok is false when
// the phase was not measured.
func spread(ms []Measurement, tool, phase string) (wall, rss string, ok bool) {
	var ws, rs []float64
	for _, m := range ms {
		if m.Tool == tool && m.Phase == phase {
			ws, rs = append(ws, m.Wall), append(rs, m.MaxRSSMB)
		}
	}
	if len(ws) == 0 {
		return "", "", false
	}
	return span(ws, "%.2f"), span(rs, "%.0f"), true
}

func span(v []float64, format string) string {
	lo, hi := fmt.Sprintf(format, slices.Min(v)), fmt.Sprintf(format, slices.Max(v))
	if lo == hi {
		return lo
	}
	return lo + "–" + hi
}
