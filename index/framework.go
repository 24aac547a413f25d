package index

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
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

// composerState is the state of the composer.json files a framework
// describer reads, as found now: the root's and every one the index
// holds, with size and modification time. The summary of a finished run
// keeps it; a run that finds another derives PHP files again (rederive),
// so a run cut short after writing a new composer.json, or one whose
// root composer.json is not indexed, still ends right.
func composerState(root string, old map[string]store.File) string {
	var lines []string
	add := func(rel string) {
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			lines = append(lines, rel+" -")
			return
		}
		lines = append(lines, fmt.Sprintf("%s %d %d", rel, st.Size(), st.ModTime().UnixNano()))
	}
	if _, ok := old["composer.json"]; !ok {
		add("composer.json")
	}
	for p := range old {
		if path.Base(p) == "composer.json" {
			add(p)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// rederive reports whether rel must be derived again though it is
// unchanged (see composerState).
func (ix *Indexer) rederive(rel string) bool {
	return ix.composerChanged && strings.EqualFold(path.Ext(rel), ".php")
}
