//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/store"
)

// TestWorkbenchFollowsWorkspace: the workbench keeps the index current
// while it is open, as `dossier mcp` does: a file written while it is
// open is found by the search overlay without a restart (the open query
// is searched again when the batch lands), and a deleted file's symbol
// is no longer found. Quitting ends the watch: the workbench exits 0 with
// nothing on the terminal.
func TestWorkbenchFollowsWorkspace(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	root := watchRepo(t)
	tm := startTmux(t, tmuxPath, root, t.TempDir())
	tm.waitFor("the flow loaded and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.status(), "index up to date")
	})

	// 1. The symbol of a committed file is found.
	tm.keys("/")
	tm.waitFor("the search overlay", 0, func(s *screen) bool { return strings.Contains(s.text, "search: ") })
	tm.literal("NebulaRetired9")
	tm.waitFor("old/gone.go found", 0, func(s *screen) bool {
		first, ok := s.firstResult()
		return ok && strings.HasPrefix(first, "old/gone.go:") && strings.HasSuffix(first, " NebulaRetired9")
	})

	// 2. A query for a symbol no file has yet, then the file written: the
	// batch lands and the open query finds it.
	tm.keys("C-u")
	tm.literal("QuasarBeacon7")
	tm.waitFor("no result for QuasarBeacon7 yet", 0, func(s *screen) bool {
		_, ok := s.firstResult()
		return !ok && strings.Contains(s.text, "no results scoring at least")
	})
	written := time.Now()
	writeFile(t, root, "sky/star.go", "package sky\n\n// QuasarBeacon7 shines.\nfunc QuasarBeacon7() int { return 7 }\n")
	tm.waitFor("sky/star.go found while the workbench is open", 0, func(s *screen) bool {
		first, ok := s.firstResult()
		return ok && strings.HasPrefix(first, "sky/star.go:") && strings.HasSuffix(first, " QuasarBeacon7")
	})
	t.Logf("a new file's symbol on screen %v after the write", time.Since(written).Round(time.Millisecond))

	// 3. A file deleted while the overlay is closed: reopened, the overlay
	// searches again and its symbol is gone; the status line says what
	// the batch did.
	tm.keys("Escape")
	tm.waitFor("the overlay closed", 0, func(s *screen) bool { return !strings.Contains(s.text, "search: ") })
	deleted := time.Now()
	if err := os.Remove(filepath.Join(root, "old", "gone.go")); err != nil {
		t.Fatal(err)
	}
	// Two: the file and its history (.dossier/history/old/gone.go.md),
	// which a fresh index of the tree no longer holds either.
	tm.waitFor("the deletion on the status line", 0, func(s *screen) bool {
		return strings.Contains(s.status(), "index: 2 files removed")
	})
	t.Logf("a deleted file's batch on the status line %v after the delete", time.Since(deleted).Round(time.Millisecond))
	tm.keys("/")
	tm.waitFor("the search overlay again", 0, func(s *screen) bool { return strings.Contains(s.text, "search: QuasarBeacon7") })
	tm.keys("C-u")
	tm.literal("NebulaRetired9")
	scr := tm.waitFor("no result for the deleted NebulaRetired9", 0, func(s *screen) bool {
		_, ok := s.firstResult()
		return !ok && strings.Contains(s.text, "no results scoring at least")
	})
	if strings.Contains(scr.text, "old/gone.go") {
		t.Errorf("the deleted file is still shown:\n%s", scr)
	}

	// 4. q quits: the watch ends with the workbench.
	tm.keys("Escape")
	tm.waitFor("the overlay closed", 0, func(s *screen) bool { return !strings.Contains(s.text, "search: ") })
	tm.quitClean()
}

// TestWorkbenchWaitsForIndexLock: the workbench opens on a workspace
// whose index's writer lock another process holds (an `index --watch` in
// another shell): it neither hangs nor fails, says who keeps the index,
// and takes over once that process lets go, from then on keeping the
// index current itself.
func TestWorkbenchWaitsForIndexLock(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	root := watchRepo(t)
	lock, err := store.AcquireWriter(root, 0)
	if err != nil {
		t.Fatal(err)
	}
	released := false
	defer func() {
		if !released {
			lock.Release()
		}
	}()
	tm := startTmux(t, tmuxPath, root, t.TempDir())
	tm.waitFor("the index kept by another process", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.title(), "index kept by another process") && strings.Contains(s.status(), "another dossier process writes the index")
	})
	// Search answers meanwhile, from the index the other process keeps.
	tm.keys("/")
	tm.waitFor("the search overlay", 0, func(s *screen) bool { return strings.Contains(s.text, "search: ") })
	tm.literal("NebulaRetired9")
	tm.waitFor("old/gone.go found", 0, func(s *screen) bool {
		first, ok := s.firstResult()
		return ok && strings.HasPrefix(first, "old/gone.go:")
	})
	tm.keys("Escape")
	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	released = true
	tm.waitFor("the workbench taking over the index", 0, func(s *screen) bool {
		return strings.Contains(s.status(), "index up to date") && !strings.Contains(s.title(), "index kept")
	})
	writeFile(t, root, "sky/star.go", "package sky\n\n// QuasarBeacon7 shines.\nfunc QuasarBeacon7() int { return 7 }\n")
	tm.keys("/")
	tm.waitFor("the search overlay", 0, func(s *screen) bool { return strings.Contains(s.text, "search: ") })
	tm.keys("C-u")
	tm.literal("QuasarBeacon7")
	tm.waitFor("sky/star.go found once the workbench keeps the index", 0, func(s *screen) bool {
		first, ok := s.firstResult()
		return ok && strings.HasPrefix(first, "sky/star.go:")
	})
	tm.keys("Escape")
	tm.waitFor("the overlay closed", 0, func(s *screen) bool { return !strings.Contains(s.text, "search: ") })
	tm.quitClean()
}

// watchRepo is a git repository with a committed index; old/gone.go
// defines NebulaRetired9.
func watchRepo(t *testing.T) string {
	t.Helper()
	g := newGitRepo(t)
	g.commit(map[string]string{
		"go.mod":          "module example.com/watchws\n\ngo 1.22\n",
		"parser/parse.go": "package parser\n\n// Parse splits a line.\nfunc Parse(line string) []string { return nil }\n",
		"old/gone.go":     "package old\n\n// NebulaRetired9 is about to go.\nfunc NebulaRetired9() int { return 9 }\n",
	}, "init", false)
	must(t, "index", "--root", g.root)
	return g.root
}

// quitClean presses q and checks the workbench exits 0 leaving nothing on
// the terminal.
func (tm *tmuxTerm) quitClean() {
	tm.t.Helper()
	tm.keys("q")
	final := tm.waitFor("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	tm.exited = true
	if !strings.Contains(final.text, exitMarker+"0.") {
		tm.t.Fatalf("the workbench did not exit with status 0:\n%s", final)
	}
	for _, bad := range []string{"panic", "goroutine ", "dossier:", "crashed"} {
		if strings.Contains(final.text, bad) {
			tm.t.Errorf("the terminal shows %q after quitting:\n%s", bad, final)
		}
	}
}
