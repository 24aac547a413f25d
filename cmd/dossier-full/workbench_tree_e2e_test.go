//go:build unix

package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// treeRow matches a row of the file tree pane (the left pane, its border
// heavy while focused): mark, name, and what the right end says.
func treeRow(s *screen, mark, name, right string) bool {
	re := regexp.MustCompile(`^[┃│] *(?:[▸▾] )?` + regexp.QuoteMeta(mark) + ` ` + regexp.QuoteMeta(name) + ` +` + regexp.QuoteMeta(right) + `\S*[┃│]`)
	for _, l := range s.lines() {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

// TestWorkbenchE2EFileTree: t opens the tree of the indexed files (a
// gitignored folder left out), the folder holding a part of the flow
// marked; typing filters it fuzzily; enter adds the best match through
// `evidence add`, and its row is marked once the part is on disk.
func TestWorkbenchE2EFileTree(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	t.Setenv("FLOW_DIR", "")
	root := filepath.Join(t.TempDir(), "treews")
	for _, n := range []string{"alpha", "bravo", "charlie"} {
		writeFile(t, root, n+"/"+n+".go", "package "+n+"\n\n// Run does "+n+"'s work.\nfunc Run() string {\n\treturn \""+n+"\"\n}\n")
	}
	writeFile(t, root, "bravo/bravo_test.go", "package bravo\n")
	writeFile(t, root, ".gitignore", "build/\n")
	writeFile(t, root, "build/gen.go", "package build\n")
	must(t, "flow", "new", "tree", "--root", root, "--request", "Pick files.")
	must(t, "evidence", "add", "alpha/alpha.go", "--root", root)
	evDir := filepath.Join(flowDir(t, root), "ctx", "evidence")

	tm := startTmux(t, tmuxPath, root, t.TempDir())
	tm.waitFor("the flow and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "Evidence 2/2") && strings.Contains(s.status(), "index up to date")
	})
	tm.keys("t")
	scr := tm.waitFor("the tree, alpha/ marked as in the flow", 0, func(s *screen) bool {
		return strings.Contains(s.text, "Files · 5 indexed · ") &&
			treeRow(s, "◐", "alpha/", "1 in flow · 1 file ") && treeRow(s, " ", "bravo/", "2 files ")
	})
	tm.waitFor("the tokens counted with the budget's tokenizer", 0, func(s *screen) bool {
		return strings.Contains(s.text, "Files · 5 indexed · tokens o200k_base") && treeRow(s, " ", "bravo/", "2 files ")
	})
	if strings.Contains(scr.text, "build/") {
		t.Errorf("the gitignored build/ is in the tree:\n%s", scr)
	}
	tm.literal("brgo")
	tm.waitFor("the filter's matches only", 0, func(s *screen) bool {
		return strings.Contains(s.text, "Files · 2 of 5 match") && treeRow(s, " ", "bravo.go", "") &&
			!strings.Contains(s.text, "alpha/") && !strings.Contains(s.text, "charlie/")
	})
	tm.keys("Enter")
	tm.waitFor("bravo.go added and marked", 0, func(s *screen) bool {
		return partID(evDir, "bravo_go") != "" && treeRow(s, "●", "bravo.go", "") &&
			treeRow(s, "◐", "bravo/", "1 in flow · 2 matches ")
	})
	// Two escapes sent together read as one alt+esc: one at a time.
	tm.keys("Escape")
	tm.waitFor("esc clearing the filter", 0, func(s *screen) bool {
		return strings.Contains(s.text, "Files · 5 indexed") && treeRow(s, "◐", "bravo/", "1 in flow · 2 files ")
	})
	tm.keys("Escape")
	tm.waitFor("esc closing the tree", 0, func(s *screen) bool { return !strings.Contains(s.text, "Files · ") })
	tm.keys("q")
	final := tm.waitFor("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	tm.exited = true
	if !strings.Contains(final.text, exitMarker+"0.") {
		t.Fatalf("the workbench did not exit with status 0:\n%s", final)
	}
}
