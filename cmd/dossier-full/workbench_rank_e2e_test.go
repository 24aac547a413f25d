//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWorkbenchE2ERankToTheTop: K on the second part of a band moves it to
// the head of the band though no rank is free above the first, as
// `evidence rebase` leaves a band (issue 32: the workbench said "no free
// rank there: run :evidence rebase", and again after the rebase); u puts
// back every file of the flow as it was.
func TestWorkbenchE2ERankToTheTop(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	t.Setenv("FLOW_DIR", "")
	root := filepath.Join(t.TempDir(), "rankws")
	for _, n := range []string{"alpha", "bravo", "charlie"} {
		writeFile(t, root, n+"/"+n+".go", "package "+n+"\n\n// Run does "+n+"'s work.\nfunc Run() string {\n\treturn \""+n+"\"\n}\n")
	}
	must(t, "flow", "new", "ranks", "--root", root, "--request", "Order the parts.")
	for i, n := range []string{"alpha", "bravo", "charlie"} {
		must(t, "evidence", "add", n+"/"+n+".go", "--rank", []string{"100", "105", "150"}[i], "--root", root)
	}
	must(t, "evidence", "rebase", "--root", root)
	dir := flowDir(t, root)
	evDir := filepath.Join(dir, "ctx", "evidence")
	if got := strings.Fields(listDir(evDir)); strings.Join(got, " ") != "100_alpha_go.evidence.md 110_bravo_go.evidence.md 120_charlie_go.evidence.md" {
		t.Fatalf("after rebase: %v", got)
	}
	before := tree(t, dir)

	tm := startTmux(t, tmuxPath, root, t.TempDir())
	tm.waitFor("the flow with its three parts and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "Evidence 4/4") && s.rows()["010_request"].cursor && strings.Contains(s.status(), "index up to date")
	})
	tm.keys("j", "j")
	tm.waitFor("the cursor on 110_bravo_go", 0, func(s *screen) bool { return s.rows()["110_bravo_go"].cursor })
	tm.keys("K")
	// The prompt is rebuilt after the renames: wait for it too.
	promptPath := filepath.Join(dir, "build", "prompt.mdctx")
	scr := tm.waitFor("bravo at the head of the band under the cursor, and first in the prompt", 0, func(s *screen) bool {
		r := s.rows()
		prompt, _ := os.ReadFile(promptPath)
		bravo, alpha := strings.Index(string(prompt), "bravo/bravo.go"), strings.Index(string(prompt), "alpha/alpha.go")
		return r["100_bravo_go"].cursor && r["100_bravo_go"].band == "crit" && r["110_alpha_go"].active &&
			listDir(evDir) == "100_bravo_go.evidence.md\n110_alpha_go.evidence.md\n120_charlie_go.evidence.md" &&
			bravo >= 0 && bravo < alpha
	})
	if strings.Contains(scr.text, "no free rank") || strings.Contains(scr.text, "rebase") {
		t.Errorf("K asked for a rebase:\n%s", scr)
	}

	tm.keys("u")
	tm.waitFor("the undo on disk and on screen", 0, func(s *screen) bool {
		r := s.rows()
		return r["110_bravo_go"].cursor && r["100_alpha_go"].active && tree(t, dir) == before
	})
	tm.keys("q")
	final := tm.waitFor("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	tm.exited = true
	if !strings.Contains(final.text, exitMarker+"0.") {
		t.Fatalf("the workbench did not exit with status 0:\n%s", final)
	}
}
