package index

import (
	"encoding/json"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/describe"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/laravel"
)

// frameworkHook arranges for a Laravel file's facts to be read from the
// chunker's own parse (no second parse); the returned func undoes it.
func (w *worker) frameworkHook(fc *describe.FileContext) func() {
	if fc.Language != lang.PHP || !w.laravel.In(fc.Path) {
		return func() {}
	}
	w.parsers.OnTree = func(language string, root *sitter.Node, src []byte) {
		fc.Laravel = laravel.Extract(root, src, fc.Path)
	}
	return func() { w.parsers.OnTree = nil }
}

// frameworkRecord is the stored form of fc's framework facts, nil when
// there are none.
func frameworkRecord(fc *describe.FileContext) ([]byte, error) {
	if fc.Laravel.Empty() {
		return nil, nil
	}
	return json.Marshal(fc.Laravel)
}
