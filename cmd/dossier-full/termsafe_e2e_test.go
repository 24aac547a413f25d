//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWorkbenchE2EFileEscapes opens the workbench in tmux (set-clipboard
// on, so an OSC 52 reaching the pane would fill a paste buffer) on a
// workspace whose file name and content carry an OSC 52 clipboard write, a
// screen clear and a title change. The search overlay, the list and the
// preview must show them escaped, and tmux must have obeyed none of them.
func TestWorkbenchE2EFileEscapes(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	root := filepath.Join(t.TempDir(), "e2esafe")
	writeFile(t, root, "go.mod", "module example.com/e2esafe\n\ngo 1.22\n")
	if err := os.WriteFile(filepath.Join(root, evilName), []byte(evilContent), 0o644); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	tm := startTmux(t, tmuxPath, root, t.TempDir())
	tm.waitFor("the flow loaded and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.HasPrefix(s.title(), "dossier · e2esafe-") && strings.Contains(s.status(), "index up to date")
	})

	tm.keys("/")
	tm.waitFor("the search overlay", 0, func(s *screen) bool { return strings.Contains(s.text, "search: ") })
	tm.literal("Evil")
	tm.waitFor("the evil file found, its name and content escaped", 0, func(s *screen) bool {
		first, ok := s.firstResult()
		return ok && strings.Contains(first, `evil\x1b]52;c;aGk=\a\x1b[2J.go:`) &&
			strings.Contains(s.text, `\x1b]52;c;cHduZWQ=\a and \x1b[2J and \x1b]0;title\a`)
	})
	tm.keys("Enter")
	tm.waitFor("the part added, its preview escaped", 0, func(s *screen) bool {
		return strings.Contains(s.text, "Evidence 1/1") && strings.Contains(s.status(), "Added evidence") &&
			strings.Contains(s.text, `Overwrite\rthis\b\b line.`)
	})
	tm.keys("v")
	tm.waitFor("the assembled prompt, escaped", 0, func(s *screen) bool {
		return strings.Contains(s.text, "Assembled · mdctx") && strings.Contains(s.text, `\x1b]52;c;cHduZWQ=\a`)
	})

	// tmux handles a sequence as the pane's output arrives, before the
	// screen that follows it: by now one would have taken effect.
	if bufs, _ := tm.run("list-buffers"); strings.TrimSpace(bufs) != "" {
		t.Errorf("an OSC 52 from the file reached tmux, which set a paste buffer:\n%s", bufs)
	}
	if title, _ := tm.run("display-message", "-p", "-t", "e2e", "#{pane_title}"); strings.TrimSpace(title) == "title" {
		t.Error("an OSC 0 from the file retitled the pane")
	}
	tm.keys("q")
	final := tm.waitFor("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	tm.exited = true
	if !strings.Contains(final.text, exitMarker+"0.") {
		t.Fatalf("the workbench did not exit with status 0:\n%s", final)
	}
}
