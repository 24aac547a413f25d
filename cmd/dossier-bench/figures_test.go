package main

import (
	"bytes"
	"testing"
)

// TestFigures: the table README.md quotes is made from the run's
// measurements, each a range over the runs, in README.md's form.
func TestFigures(t *testing.T) {
	rep := &Report{Src: "/go/src", CopyFiles: 11478, Measurements: []Measurement{
		{Tool: "repomix", Run: 1, Phase: "pack", Wall: 24.5, MaxRSSMB: 964},
		{Tool: "dossier", Run: 1, Phase: "full", Wall: 19.7, MaxRSSMB: 497},
		{Tool: "dossier", Run: 1, Phase: "noop", Wall: 0.61, MaxRSSMB: 90},
		{Tool: "repomix", Run: 2, Phase: "pack", Wall: 20.1, MaxRSSMB: 904},
		{Tool: "dossier", Run: 2, Phase: "full", Wall: 16.7, MaxRSSMB: 396},
		{Tool: "dossier", Run: 2, Phase: "noop", Wall: 0.47, MaxRSSMB: 65},
	}, Search: []SearchMeasurement{{Mode: "hybrid", P50: 24.04, P95: 31.7}, {Mode: "text", P50: 3, P95: 5.7}}}
	var b bytes.Buffer
	printFigures(&b, rep)
	want := "README.md's table (/go/src, 11478 files):\n\n" +
		"| what | figure |\n|---|---|\n" +
		"| `dossier index`, full | 16.70–19.70 s, 396–497 MB peak RSS |\n" +
		"| repomix on the same tree, for scale | 20.10–24.50 s, 904–964 MB peak RSS |\n" +
		"| `dossier index`, nothing changed | 0.47–0.61 s |\n" +
		"| `dossier search --json`, one process, hybrid: p50 / p95 | 24.0 / 31.7 ms |\n" +
		"| `dossier search --json`, one process, text: p50 / p95 | 3.0 / 5.7 ms |\n\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
