package index

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/describe"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/laravel"
	"github.com/dossierhq/dossier/store"
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

// composerChanged reports whether a composer.json the index knows changed
// or went, or the root's is new: which files a framework describer reads
// may have changed with it, so PHP files are derived again (rederive).
func composerChanged(root string, old map[string]store.File) bool {
	if len(old) == 0 {
		return false
	}
	if _, ok := old["composer.json"]; !ok {
		if _, err := os.Stat(filepath.Join(root, "composer.json")); err == nil {
			return true
		}
	}
	for p, f := range old {
		if path.Base(p) != "composer.json" {
			continue
		}
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || st.Size() != f.Size || st.ModTime().UnixNano() != f.ModTime {
			return true
		}
	}
	return false
}

// rederive reports whether rel must be derived again though it is
// unchanged (see composerChanged).
func (ix *Indexer) rederive(rel string) bool {
	return ix.composerChanged && strings.EqualFold(path.Ext(rel), ".php")
}
