//go:build unix

package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// sgrParams finds the parameters of every SGR sequence on a screen.
var sgrParams = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// TestWorkbenchE2ENoColorKeepsEmphasis: under NO_COLOR the workbench in a
// real terminal draws no colour, but the selected row stays reverse video
// and the focused pane's title bold (termenv took NO_COLOR for "no
// escapes at all" and the selection was invisible).
func TestWorkbenchE2ENoColorKeepsEmphasis(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	t.Setenv("FLOW_DIR", "")
	root := filepath.Join(t.TempDir(), "nocolorws")
	writeFile(t, root, "alpha/alpha.go", "package alpha\n\n// Run runs.\nfunc Run() {}\n")
	must(t, "flow", "new", "plain", "--root", root, "--request", "Look without colour.")
	must(t, "evidence", "add", "alpha/alpha.go", "--root", root)

	tm := startTmuxEnv(t, tmuxPath, root, t.TempDir(), []string{"NO_COLOR=1"})
	tm.waitFor("the flow loaded", 20*time.Second, func(s *screen) bool { return strings.Contains(s.text, "Evidence 2/2") })
	scr := tm.captureSGR()
	attrs := map[string]bool{}
	for _, m := range sgrParams.FindAllStringSubmatch(scr.text, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			switch p {
			case "0", "1", "2", "3", "4", "7", "22", "23", "24", "27", "39", "49": // 39, 49: the default colours
				attrs[p] = true
			default:
				t.Errorf("a colour under NO_COLOR: SGR %q", m[0])
			}
		}
	}
	if !attrs["7"] || !attrs["1"] {
		t.Errorf("no reverse video (7) or bold (1) under NO_COLOR, only %v:\n%q", attrs, scr.text)
	}
	var selected string
	for _, l := range strings.Split(scr.text, "\n") {
		if strings.Contains(l, "▸") {
			selected = l
		}
	}
	if !strings.Contains(selected, "\x1b[7m") {
		t.Errorf("the selected row is not reverse video: %q", selected)
	}
	tm.keys("q")
	tm.waitFor("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	tm.exited = true
}
