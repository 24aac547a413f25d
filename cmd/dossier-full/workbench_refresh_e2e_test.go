//go:build unix

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestWorkbenchE2ERefreshFollowsTheFunction: a part added from the search
// overlay (a line range) whose source gained a line above the function is
// refreshed from the workbench's command line, and then holds the
// function exactly as `evidence add FILE::@Parse` gives it now, on disk
// and in the preview (issue 32: refresh re-read the old line numbers, so
// the part began with a blank line and lost its closing brace).
func TestWorkbenchE2ERefreshFollowsTheFunction(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	t.Setenv("FLOW_DIR", "")
	root := filepath.Join(t.TempDir(), "refreshws")
	writeFile(t, root, "go.mod", "module example.com/refreshws\n\ngo 1.22\n")
	src := "package parser\n\nimport \"strings\"\n\n" +
		"// Parse splits a line into its fields.\nfunc Parse(line string) []string {\n\treturn strings.Fields(line)\n}\n"
	writeFile(t, root, "parser/parse.go", src)
	must(t, "flow", "new", "refresh", "--root", root, "--request", "Keep Parse exact.")
	evDir := filepath.Join(flowDir(t, root), "ctx", "evidence")

	tm := startTmux(t, tmuxPath, root, t.TempDir())
	tm.waitFor("the flow loaded and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "Evidence 1/1") && strings.Contains(s.status(), "index up to date")
	})
	tm.keys("/")
	tm.waitFor("the search overlay", 0, func(s *screen) bool { return strings.Contains(s.text, "search: ") })
	tm.literal("Parse")
	tm.waitFor("Parse found in parser/parse.go", 0, func(s *screen) bool {
		first, ok := s.firstResult()
		return ok && strings.HasPrefix(first, "parser/parse.go:") && strings.HasSuffix(first, " Parse")
	})
	tm.keys("Enter")
	tm.waitFor("the search result added", 0, func(s *screen) bool {
		return partID(evDir, "parse_go") != "" && strings.Contains(s.status(), "Added evidence")
	})

	// One line above the function, then refresh from the command line.
	writeFile(t, root, "parser/parse.go", "// Package parser splits lines.\n"+src)
	tm.keys(":")
	tm.waitFor("the command line", 0, func(s *screen) bool { return strings.HasPrefix(s.bottom(), ":") })
	tm.literal("evidence refresh")
	tm.keys("Enter")
	tm.waitFor("the refresh reported", 0, func(s *screen) bool { return strings.Contains(s.text, "✓ moved    1") })
	id := partID(evDir, "parse_go")
	got := fencedCode(t, filepath.Join(evDir, id+".evidence.md"))
	// The report closes with any key; then the part's preview.
	tm.keys("Escape")
	tm.waitFor("the report closed", 0, func(s *screen) bool { return !strings.Contains(s.text, "any key closes") })
	tm.keys("g", "j")
	scr := tm.waitFor("the part's preview", 0, func(s *screen) bool {
		return s.rows()[id].cursor && strings.Contains(s.text, "func Parse(line string)")
	})
	if !closingBrace.MatchString(scr.text) || !strings.Contains(scr.text, "│ // Parse splits a line into its fields.") {
		t.Errorf("the preview does not show Parse whole after the refresh:\n%s", scr)
	}
	tm.keys("q")
	tm.waitFor("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	tm.exited = true

	// What `evidence add FILE::@Parse` gives now, in a flow of its own.
	must(t, "index", "--root", root)
	must(t, "flow", "new", "expect", "--root", root)
	must(t, "evidence", "add", "parser/parse.go::@Parse", "--root", root)
	expDir := filepath.Join(flowDir(t, root), "ctx", "evidence")
	want := fencedCode(t, filepath.Join(expDir, partID(expDir, "parse_go")+".evidence.md"))
	if got != want {
		t.Errorf("the refreshed part holds\n%s\nwhere `evidence add parser/parse.go::@Parse` gives\n%s", got, want)
	}
}

// closingBrace is the preview's line of Parse's closing brace: "9 │ }".
var closingBrace = regexp.MustCompile(`(?m)│ *\d+ │ }\s*│$`)

// fencedCode is the code block of a part file.
func fencedCode(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, code, ok := strings.Cut(string(raw), "```go\n")
	code, _, ok2 := strings.Cut(code, "\n```")
	if !ok || !ok2 {
		t.Fatalf("no go code block in %s:\n%s", path, raw)
	}
	return code
}
