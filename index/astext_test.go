package index

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/segment"
	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store"
)

// TestCostlyTreeIndexedAsText proves a code file whose syntax tree is
// over the walk's bound (segment.MaxWalkSteps) is indexed whole, as text
// windows, with a note that names it and says why, in the summary the
// run returns and in the one stats reads; a file beside it is parsed as
// usual.
func TestCostlyTreeIndexedAsText(t *testing.T) {
	root := t.TempDir()
	write(t, root, "ok.go", "package ok\n\nfunc OK() {}\n")
	// Two nodes a line (an empty statement, a newline): just over the
	// bound in 256 KiB.
	write(t, root, "flat.go", "package flat\n\nfunc Lost() {}\n"+strings.Repeat(";\n", segment.MaxWalkSteps/2))
	sum := run(t, root, func(o *Options) { o.Verbose = true })
	want := []summary.Skipped{{Path: "flat.go", Reason: NoteAsText, Detail: "over 262144 syntax nodes to walk"}}
	if sum.Notes[NoteAsText] != 1 || !reflect.DeepEqual(sum.NotedFiles, want) {
		t.Errorf("notes %v, noted files %+v; want %+v", sum.Notes, sum.NotedFiles, want)
	}
	stored, err := summary.Read(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Notes[NoteAsText] != 1 || !reflect.DeepEqual(stored.NotedFiles, want) {
		t.Errorf("stored: notes %v, noted files %+v", stored.Notes, stored.NotedFiles)
	}
	view(t, root, func(tx *store.Tx) {
		f, ok, err := tx.File("flat.go")
		if err != nil || !ok || len(f.Kinds) != 1 || f.Kinds["text_window"] == 0 {
			t.Errorf("flat.go: record %+v, ok %v, err %v", f, ok, err)
		}
		assertCovered(t, tx, "flat.go")
		if got := symbols(tx, "lost"); len(got) != 0 {
			t.Errorf("flat.go: symbols %v from text windows", got)
		}
		if got := symbols(tx, "ok"); len(got) != 1 {
			t.Errorf("ok.go: symbols %v", got)
		}
	})
	// Without --verbose the note is counted, its file not listed.
	write(t, root, "flat.go", "package flat\n"+strings.Repeat(";\n", segment.MaxWalkSteps/2+1))
	if sum := run(t, root); sum.Notes[NoteAsText] != 1 || sum.NotedFiles != nil {
		t.Errorf("not verbose: notes %v, noted files %+v", sum.Notes, sum.NotedFiles)
	}
}
