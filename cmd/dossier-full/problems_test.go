package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index"
	summ "github.com/dossierhq/dossier/index/summary"
)

// TestProblemsAreListed: a file parsed with a syntax error is named with
// its line by index --json (not only -v), and by stats --problems (human
// and --json) after a later run that did not read it again.
func TestProblemsAreListed(t *testing.T) {
	root := workspace(t, 1)
	os.WriteFile(filepath.Join(root, "broken.go"), []byte("package x\n\nfunc Good() {}\n\n@@@ garbage ;;; here\n\nfunc After() {}\n"), 0o644)
	r := "--root=" + root
	var sum index.Summary
	if err := json.Unmarshal([]byte(must(t, "index", "--json", r)), &sum); err != nil {
		t.Fatal(err)
	}
	want := summ.Skipped{Path: "broken.go", Reason: index.NoteParseError, Detail: "first syntax error at line 5"}
	if !slices.Contains(sum.NotedFiles, want) {
		t.Errorf("index --json noted files %+v, want %+v", sum.NotedFiles, want)
	}
	must(t, "index", r)
	if stats := must(t, "stats", r); !strings.Contains(stats, "parse errors  1 files parsed with syntax errors (chunked around them; `dossier stats --problems` lists them)") {
		t.Errorf("stats:\n%s", stats)
	}
	if list := must(t, "stats", "--problems", r); list != "broken.go:5\tparse_error\tsyntax error\n" {
		t.Errorf("stats --problems:\n%s", list)
	}
	var list []summ.ProblemAt
	if err := json.Unmarshal([]byte(must(t, "stats", "--problems", "--json", r)), &list); err != nil ||
		!slices.Equal(list, []summ.ProblemAt{{Path: "broken.go", Line: 5, Reason: index.NoteParseError, Detail: "syntax error"}}) {
		t.Errorf("stats --problems --json: %+v (%v)", list, err)
	}
}
