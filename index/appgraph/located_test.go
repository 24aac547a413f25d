package appgraph_test

import (
	"strings"
	"testing"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/django"
	"github.com/dossierhq/dossier/index/jsapp"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/laravel"
	"github.com/dossierhq/dossier/index/segment"
)

// TestExtractorFailureLine: a panic of a framework extractor's walk is an
// appgraph.Failure at the line of the construct it was reading (a route, a
// URL pattern), which the index reports with the file. The panics are real
// ones: each extractor gets the tree of the whole file with its source cut
// short in the construct, so that reading that construct's text goes out
// of range.
func TestExtractorFailureLine(t *testing.T) {
	tests := []struct {
		name, language, rel, src, cutAt string
		extract                         func(root *sitter.Node, src []byte, rel string) *appgraph.Facts
		line                            int
	}{
		{"laravel", lang.PHP, "routes/web.php", "<?php\nuse Illuminate\\Support\\Facades\\Route;\n\n" +
			"Route::get('/a', [A::class, 'index']);\nRoute::post('/contact', [ContactController::class, 'store']);\n",
			"'/contact'", laravel.Extract, 5},
		{"django", lang.Python, "shop/urls.py", "from django.urls import path\nfrom . import views\n\nurlpatterns = [\n" +
			"    path(\"items/\", views.items),\n    path(\"contact/\", views.contact),\n]\n",
			"views.contact", django.Extract, 6},
		{"express", lang.JavaScript, "routes/contact.js", "const router = require('express').Router();\n\n" +
			"router.get('/a', a);\nrouter.post('/contact', sendContact);\nmodule.exports = router;\n",
			"'/contact'", jsapp.ExtractExpress, 4},
	}
	ps := segment.NewParsers()
	defer ps.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := ps.Tree(tt.language, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			cut := []byte(tt.src[:strings.Index(tt.src, tt.cutAt)])
			defer func() {
				if f, ok := recover().(appgraph.Failure); !ok || f.Line != tt.line || !strings.Contains(f.Error(), "out of range") {
					t.Errorf("recovered %#v, want a Failure at line %d (the construct being read)", f, tt.line)
				}
			}()
			tt.extract(tree.RootNode(), cut, tt.rel)
			t.Error("the extractor did not fail on a source shorter than its tree")
		})
	}
}
