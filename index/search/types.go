package search

import (
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/index/lang"
)

// describedKinds are the chunk kinds dossier's describers emit, sorted:
// describe.Default().Kinds(), which TestDescribedKinds holds this to. They
// are written out so that searching links no parser (the one-shot binary
// starts without tree-sitter).
var describedKinds = []string{"class", "config_key", "enum", "function", "impl", "imports", "interface",
	"markdown_section", "method", "module", "record", "struct", "text_window", "top_level", "trait", "type"}

// builtinTypes are the chunk kinds dossier's describers emit and the
// source types it classifies files as: what --type may name even in an
// index that has none of them.
var builtinTypes = sync.OnceValues(func() (kinds, sources []string) {
	kinds = slices.Clone(describedKinds)
	sources = []string{lang.SrcCode, lang.SrcTest, lang.SrcDoc, lang.SrcReadme, lang.SrcADR, lang.SrcConfig,
		lang.SrcPackage, lang.SrcText, lang.SrcGenerated, lang.SrcKnownBug, lang.SrcAPIEndpoint,
		lang.SrcCursorRule, lang.SrcClaudeRule}
	sources = append(sources, lang.FrameworkSourceTypes...)
	sources = append(sources, TypeTable) // answered from the graph (tables.go)
	sources = append(sources, lang.HistorySourceTypes...)
	return kinds, sources
})

// checkTypes refuses a type filter naming neither a kind nor a source type
// that dossier knows or the index holds, listing them: a typo would
// otherwise silently match nothing.
func (v *view) checkTypes(f filter) error {
	if f.types == nil {
		return nil
	}
	bk, bs := builtinTypes()
	kinds, sources := map[string]bool{}, map[string]bool{}
	for _, k := range bk {
		kinds[k] = true
	}
	for _, s := range bs {
		sources[s] = true
	}
	for _, k := range v.e.snap.meta.Kinds {
		kinds[k] = true
	}
	for _, s := range v.e.snap.meta.SrcTypes {
		sources[s] = true
	}
	var unknown []string
	for t := range f.types {
		if kinds[t] || sources[t] {
			continue
		}
		if v.dirtyHolds(t) {
			continue
		}
		unknown = append(unknown, t)
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return badQuery("unknown type %q: give a kind (%s) or a source type (%s)",
		strings.Join(unknown, ","), strings.Join(slices.Sorted(maps.Keys(kinds)), ", "),
		strings.Join(slices.Sorted(maps.Keys(sources)), ", "))
}

// dirtyHolds reports whether a file changed since the snapshot has a chunk
// of kind or source type t (a kind newer than the snapshot).
func (v *view) dirtyHolds(t string) bool {
	for p := range v.dirty {
		r, err := v.record(p)
		if err != nil || r == nil {
			continue
		}
		for _, m := range r.Metas {
			if m.Kind == t || m.SrcType == t {
				return true
			}
		}
	}
	return false
}
