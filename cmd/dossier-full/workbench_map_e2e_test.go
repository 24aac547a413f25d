//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mapOrder reads the flow's map part and reports whether alpha's core is
// listed before beta's.
func mapOrder(evDir string) (alphaFirst, ok bool) {
	ps, _ := filepath.Glob(filepath.Join(evDir, "*map_300*"))
	if len(ps) != 1 {
		return false, false
	}
	raw, err := os.ReadFile(ps[0])
	if err != nil {
		return false, false
	}
	a, b := strings.Index(string(raw), "alpha/thing.go:"), strings.Index(string(raw), "beta/thing.go:")
	if a < 0 || b < 0 {
		return false, false
	}
	return a < b, true
}

// TestWorkbenchE2ERepoMap: `:evidence add map:300` in the workbench adds
// the repo map (alpha's core first: three files call it), a part about
// beta marks the map stale (!) in the list, and `:evidence refresh`
// re-ranks it around the flow's evidence, beta's core first.
func TestWorkbenchE2ERepoMap(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	root, _ := mapWorkspace(t)
	evDir := filepath.Join(flowDir(t, root), "ctx", "evidence")
	tm := startTmux(t, tmuxPath, root, t.TempDir())
	tm.waitFor("the flow and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "Evidence ") && strings.Contains(s.status(), "index up to date")
	})
	command(tm, "evidence add map:300")
	tm.waitFor("the map added and listed", 0, func(s *screen) bool {
		return partID(evDir, "map_300") != "" && strings.Contains(s.text, "map_300")
	})
	if alphaFirst, ok := mapOrder(evDir); !ok || !alphaFirst {
		t.Fatalf("the plain map does not list alpha's core before beta's (found both: %v)", ok)
	}
	command(tm, "evidence add beta/user.go")
	tm.waitFor("the map marked stale once beta's user is in the flow", 0, func(s *screen) bool {
		for _, l := range s.lines() {
			if strings.Contains(l, "map_300") && strings.Contains(l, "!") {
				return partID(evDir, "user_go") != ""
			}
		}
		return false
	})
	command(tm, "evidence refresh")
	tm.waitFor("the refresh reported", 0, func(s *screen) bool {
		return strings.Contains(s.text, "re-ranked") && strings.Contains(s.text, "any key closes")
	})
	if alphaFirst, ok := mapOrder(evDir); !ok || alphaFirst {
		t.Fatalf("the refreshed map does not put beta's core first (found both: %v)", ok)
	}
	tm.keys("Escape")
	tm.waitFor("the report closed", 0, func(s *screen) bool { return !strings.Contains(s.text, "any key closes") })
	tm.quitClean()
}
