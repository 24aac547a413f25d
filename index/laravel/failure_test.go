package laravel

import (
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/segment"
)

// TestFailureLine: a panic of the extractor's walk is an appgraph.Failure
// at the line of the statement it was reading, which the index reports
// with the file. The panic here is a real one: the tree of the whole file
// with its source cut short in the second route, so that reading that
// route's text goes out of range.
func TestFailureLine(t *testing.T) {
	src := "<?php\nuse Illuminate\\Support\\Facades\\Route;\n\nRoute::get('/a', [A::class, 'index']);\n" +
		"Route::post('/contact', [ContactController::class, 'store']);\n"
	ps := segment.NewParsers()
	defer ps.Close()
	tree, err := ps.Tree(lang.PHP, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	cut := []byte(src[:strings.Index(src, "'/contact'")])
	defer func() {
		if f, ok := recover().(appgraph.Failure); !ok || f.Line != 5 || !strings.Contains(f.Error(), "out of range") {
			t.Errorf("recovered %#v, want a Failure at line 5 (the route being read)", f)
		}
	}()
	Extract(tree.RootNode(), cut, "routes/web.php")
	t.Error("Extract did not fail on a source shorter than its tree")
}
