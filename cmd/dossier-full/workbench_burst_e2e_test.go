//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestWorkbenchE2EKeyBurst types keys faster than the engine applies them:
// each tmux send-keys call below writes all its keys to the terminal at
// once, as a fast typist or a held key does. Every key must be acted on,
// in order, on the part that was under the cursor; and q typed right
// after a change quits once the change is on disk.
func TestWorkbenchE2EKeyBurst(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	t.Setenv("FLOW_DIR", "")
	root := filepath.Join(t.TempDir(), "burstws")
	names := []string{"alpha", "bravo", "charlie", "delta", "echo"}
	for _, n := range names {
		writeFile(t, root, n+"/"+n+".go", fmt.Sprintf("package %s\n\n// Run does %s's work.\nfunc Run() string {\n\treturn %q\n}\n", n, n, n))
	}
	if _, errOut, code := runCLI(t, "flow", "new", "burst", "--root", root, "--request", "Check the burst."); code != 0 {
		t.Fatal(errOut)
	}
	for _, n := range names {
		if _, errOut, code := runCLI(t, "evidence", "add", n+"/"+n+".go", "--root", root); code != 0 {
			t.Fatal(errOut)
		}
	}
	evDir := filepath.Join(flowDir(t, root), "ctx", "evidence")
	tm := startTmux(t, tmuxPath, root, t.TempDir())
	tm.waitFor("the flow with its five parts and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "Evidence 6/6") && s.rows()["010_request"].cursor && strings.Contains(s.status(), "index up to date")
	})
	// disk waits until the evidence directory holds exactly want.
	disk := func(what string, want ...string) {
		t.Helper()
		got := ""
		tm.waitFor(what, 0, func(*screen) bool {
			got = strings.ReplaceAll(listDir(evDir), "\n", " ")
			return got == strings.Join(want, " ")
		})
	}

	// Three parts skipped in one burst.
	tm.keys("j", "Space", "j", "Space", "j", "Space")
	disk("three toggles typed at once",
		"100_alpha_go.evidence.md.skip", "110_bravo_go.evidence.md.skip", "120_charlie_go.evidence.md.skip",
		"130_delta_go.evidence.md", "140_echo_go.evidence.md")

	// Space held down on delta: seven presses leave it skipped.
	tm.keys("j", "Space", "Space", "Space", "Space", "Space", "Space", "Space")
	disk("seven spaces on delta",
		"100_alpha_go.evidence.md.skip", "110_bravo_go.evidence.md.skip", "120_charlie_go.evidence.md.skip",
		"130_delta_go.evidence.md.skip", "140_echo_go.evidence.md")

	// Delta moved up twice (before charlie, then before bravo), then
	// bravo, now under the cursor, toggled back on: the second move and
	// the toggle act on the part as the first move left it.
	tm.keys("K", "K", "j", "Space")
	disk("two rank moves and a toggle",
		"100_alpha_go.evidence.md.skip", "109_delta_go.evidence.md.skip", "110_bravo_go.evidence.md",
		"120_charlie_go.evidence.md.skip", "140_echo_go.evidence.md")
	scr := tm.waitFor("the list as on disk", 0, func(s *screen) bool {
		r := s.rows()
		return r["110_bravo_go"].active && r["110_bravo_go"].cursor && !r["109_delta_go"].active && strings.Contains(s.text, "Evidence 3/6")
	})
	if strings.Contains(scr.text, "one moment") {
		t.Errorf("a key was refused:\n%s", scr)
	}

	// Search: every result is a file of the flow, marked at the head of
	// its row (● active, ○ skipped), and the overlay says what the marks
	// mean.
	tm.keys("/")
	tm.literal("Run")
	scr = tm.waitFor("search results marked as in the flow", 0, func(s *screen) bool {
		return markedRow.MatchString(s.text) && strings.Contains(s.text, "● in the flow") && strings.Contains(s.text, "○ in the flow, skipped")
	})
	if first, ok := scr.firstResult(); !ok || !strings.Contains(first, ".go:") {
		t.Errorf("no first result (%q):\n%s", first, scr)
	}
	tm.keys("Escape")
	tm.waitFor("the overlay closed", 0, func(s *screen) bool { return !strings.Contains(s.text, "search: ") })

	// A toggle and q at once: the toggle is applied, then the workbench
	// exits.
	tm.keys("g", "j", "Space", "q")
	final := tm.waitFor("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	tm.exited = true
	if !strings.Contains(final.text, exitMarker+"0.") {
		t.Fatalf("the workbench did not exit with status 0:\n%s", final)
	}
	if _, err := os.Stat(filepath.Join(evDir, "100_alpha_go.evidence.md")); err != nil {
		t.Errorf("the toggle typed with q was lost: %v\n%s", err, listDir(evDir))
	}
}

// markedRow is a search result row held by a part of the flow.
var markedRow = regexp.MustCompile(`(?m)^│ ?[●○] \d\.\d\d (alpha|bravo|charlie|delta|echo)/`)
