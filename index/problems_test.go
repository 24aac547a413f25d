package index

import (
	"context"
	"slices"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/summary"
	"github.com/dossierhq/dossier/store"
)

// failOn makes the extractor of framework fail on the file rel as a bug
// would, with err, for the rest of the test.
func failOn(t *testing.T, framework, rel string, err any) {
	saved := appFrameworks
	t.Cleanup(func() { appFrameworks = saved })
	appFrameworks = slices.Clone(saved)
	for i, f := range appFrameworks {
		if f.name == framework {
			extract := f.extract
			appFrameworks[i].extract = func(root *sitter.Node, src []byte, p, home string) *appgraph.Facts {
				if p == rel {
					panic(err)
				}
				return extract(root, src, p, home)
			}
		}
	}
}

// TestFailedExtractorCostsItsFactsOnly: an extractor failing on a file
// costs that file its framework facts only: its chunks and symbols are
// indexed, the other files' routes stand, and the failure is noted with
// the file and line (by a run that is not verbose too, so index --json
// names it), kept in the file's record (listed after a run that did not
// read the file) and counted.
func TestFailedExtractorCostsItsFactsOnly(t *testing.T) {
	failOn(t, "express", "routes/broken.js", appgraph.Failure{Line: 3, Err: "index out of range [2] with length 2"})
	root := t.TempDir()
	write(t, root, "package.json", `{"dependencies": {"express": "^4.19.0"}}`)
	write(t, root, "app.js", "const express = require('express');\nconst app = express();\n"+
		"app.get('/health', (req, res) => res.end());\nmodule.exports = app;\n")
	write(t, root, "routes/broken.js", "const router = require('express').Router();\n\n"+
		"router.post('/contact', sendContact);\n\nfunction sendContact(req, res) { res.end(); }\nmodule.exports = router;\n")
	sum := run(t, root)
	want := summary.Skipped{Path: "routes/broken.js", Reason: NoteFactsDropped,
		Detail: "line 3: express facts left out: the extractor failed: index out of range [2] with length 2"}
	if len(sum.Errors) > 0 || sum.Notes[NoteFactsDropped] != 1 || !slices.Contains(sum.NotedFiles, want) || sum.Dropped != 1 {
		t.Errorf("errors %v, notes %v, noted %+v, dropped %d; want the note %+v", sum.Errors, sum.Notes, sum.NotedFiles, sum.Dropped, want)
	}
	view(t, root, func(tx *store.Tx) {
		if got := symbols(tx, "sendcontact"); len(got) != 1 {
			t.Errorf("the failed file's function is no symbol: %v", got)
		}
		assertCovered(t, tx, "routes/broken.js")
	})
	if _, err := appgraph.WalkRoot(context.Background(), root, "route:GET /health"); err != nil {
		t.Errorf("the other file's route: %v", err)
	}
	run(t, root)
	got, err := summary.Problems(context.Background(), root)
	wantAt := []summary.ProblemAt{{Path: "routes/broken.js", Line: 3, Reason: NoteFactsDropped,
		Detail: "express facts left out: the extractor failed: index out of range [2] with length 2"}}
	if err != nil || !slices.Equal(got, wantAt) {
		t.Errorf("problems after a second run = %+v, %v; want %+v", got, err, wantAt)
	}
}
