package django

import (
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/segment"
)

// TestFailureLine: a panic of the extractor's walk is an appgraph.Failure
// at the line of the URL pattern it was reading, which the index reports
// with the file. The panic here is a real one: the tree of the whole file
// with its source cut short in the second pattern, so that reading that
// pattern's text goes out of range.
func TestFailureLine(t *testing.T) {
	src := "from django.urls import path\nfrom . import views\n\nurlpatterns = [\n" +
		"    path(\"items/\", views.items),\n    path(\"contact/\", views.contact),\n]\n"
	ps := segment.NewParsers()
	defer ps.Close()
	tree, err := ps.Tree(lang.Python, []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	cut := []byte(src[:strings.Index(src, "views.contact")])
	defer func() {
		if f, ok := recover().(appgraph.Failure); !ok || f.Line != 6 || !strings.Contains(f.Error(), "out of range") {
			t.Errorf("recovered %#v, want a Failure at line 6 (the pattern being read)", f)
		}
	}()
	Extract(tree.RootNode(), cut, "shop/urls.py")
	t.Error("Extract did not fail on a source shorter than its tree")
}
