package index

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/describe"
	"github.com/dossierhq/dossier/index/django"
	"github.com/dossierhq/dossier/index/jsapp"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/laravel"
	"github.com/dossierhq/dossier/store"
)

// appFramework is a framework whose applications the index reads (seed
// 002): which files belong to one, and what each says about the
// application, read from the chunker's own parse (no second parse).
type appFramework struct {
	name string
	// languages are the languages of the files it reads.
	languages []string
	// manifests are the base names of the files whose contents decide
	// which files belong to an application (composer.json).
	manifests []string
	// detector tells the files of its applications in the workspace at
	// root; a new one each run, so a changed manifest is read again.
	detector func(root string) detector
	// extract reads the facts of the file at rel, part of the
	// application whose folder is home.
	extract func(root *sitter.Node, src []byte, rel, home string) *appgraph.Facts
	// placed is set when a file's place makes its routes (Next.js's
	// app/api/test/route.ts is a route, not a test): the framework
	// reads test files too (see frameworkHook).
	placed bool
}

// detector tells whether a file (slash path relative to the root) is part
// of an application; a manifest's own path gives the verdict of its folder.
type detector interface {
	In(rel string) bool
	Home(rel string) (string, bool)
}

// anyHome adapts an extractor that needs no application folder.
func anyHome(f func(*sitter.Node, []byte, string) *appgraph.Facts) func(*sitter.Node, []byte, string, string) *appgraph.Facts {
	return func(root *sitter.Node, src []byte, rel, _ string) *appgraph.Facts { return f(root, src, rel) }
}

// appFrameworks are the frameworks the index knows, in the order they are
// asked: the first whose language and detector take a file reads it.
var appFrameworks = []appFramework{
	{name: "laravel", languages: []string{lang.PHP}, manifests: []string{"composer.json"},
		detector: func(root string) detector { return laravel.NewDetector(root) }, extract: anyHome(laravel.Extract)},
	{name: "next", languages: []string{lang.JavaScript, lang.TypeScript, lang.TSX}, manifests: []string{"package.json"},
		detector: func(root string) detector { return jsapp.NewNextDetector(root) }, extract: jsapp.ExtractNext, placed: true},
	{name: "express", languages: []string{lang.JavaScript, lang.TypeScript, lang.TSX}, manifests: []string{"package.json"},
		detector: func(root string) detector { return jsapp.NewExpressDetector(root) }, extract: anyHome(jsapp.ExtractExpress)},
	{name: "django", languages: []string{lang.Python}, manifests: django.Manifests,
		detector: func(root string) detector { return django.NewDetector(root) }, extract: anyHome(django.Extract)},
}

// detectors are one run's detectors, in appFrameworks' order.
type detectors []detector

func newDetectors(root string) detectors {
	ds := make(detectors, len(appFrameworks))
	for i, f := range appFrameworks {
		ds[i] = f.detector(root)
	}
	return ds
}

// frameworkOf returns the framework that reads the file, if any, and the
// folder of its application.
func (ds detectors) frameworkOf(language, rel string) (appFramework, string, bool) {
	for i, f := range appFrameworks {
		if i < len(ds) && contains(f.languages, language) {
			if home, ok := ds[i].Home(rel); ok {
				return f, home, true
			}
		}
	}
	return appFramework{}, "", false
}

// frameworkHook arranges for the facts of a file that belongs to an
// application to be read from the chunker's own parse; the returned func
// undoes it. A test file (by lang.SourceType's classification) is no part
// of the application: the routes a test registers on an app of its own,
// or the app it mounts under a prefix of its own, would stand beside the
// application's (route:POST /contact answering with a test's stub); only
// a framework whose routes are placed by their files reads it.
// An extractor that fails costs the file its facts, nothing else: the
// failure is appended to *dropped.
func (w *worker) frameworkHook(fc *describe.FileContext, dropped *[]store.FileProblem) func() {
	f, home, ok := w.detectors.frameworkOf(fc.Language, fc.Path)
	if !ok || fc.SourceType == lang.SrcTest && !f.placed {
		return func() {}
	}
	w.parsers.OnTree = func(language string, root *sitter.Node, src []byte) {
		facts, err := extractSafely(f, root, src, fc.Path, home)
		if err != nil {
			*dropped = append(*dropped, factsDropped(f.name, err))
			return
		}
		if fc.App = facts; fc.App != nil {
			fc.App.Framework = f.name
		}
	}
	return func() { w.parsers.OnTree = nil }
}

// extractSafely is f's facts of a file; err is its extractor's panic.
func extractSafely(f appFramework, root *sitter.Node, src []byte, rel, home string) (facts *appgraph.Facts, err any) {
	defer func() {
		if v := recover(); v != nil {
			facts, err = nil, v
		}
	}()
	return f.extract(root, src, rel, home), nil
}

// NoteFactsDropped is the note of a file whose framework extractor
// failed: the file is indexed, without that framework's facts (its
// routes, models, ...).
const NoteFactsDropped = "facts_dropped"

// factsDropped is the problem of framework's extractor failing with err,
// at the line an appgraph.Failure gives.
func factsDropped(framework string, err any) store.FileProblem {
	line := 0
	if f, ok := err.(appgraph.Failure); ok {
		line, err = f.Line, f.Err
	}
	return store.FileProblem{Reason: NoteFactsDropped, Line: line,
		Detail: fmt.Sprintf("%s facts left out: the extractor failed: %v", framework, err)}
}

// frameworkRecord is the stored form of fc's framework facts, nil when
// there are none.
func frameworkRecord(fc *describe.FileContext) ([]byte, error) {
	if fc.App.Empty() {
		return nil, nil
	}
	return json.Marshal(fc.App)
}

// isManifest reports whether rel is a file some framework's detector reads.
func isManifest(rel string) bool {
	base := path.Base(rel)
	for _, f := range appFrameworks {
		if contains(f.manifests, base) {
			return true
		}
	}
	return false
}

// manifestState is the verdict of every manifest a framework detector
// reads, as found now: the root's and every one the index holds. The
// summary of a finished run keeps it; a run that finds another derives
// the files of the frameworks' languages again (rederive), so a run cut
// short after writing a new manifest, or one whose root manifest is not
// indexed, still ends right, and a manifest edited without changing its
// verdict (a version bump in package.json) costs nothing. files are the
// workspace's files (the index's at the start of a run, the walk's at its
// end).
func manifestState[V any](root string, ds detectors, files map[string]V) string {
	var lines []string
	add := func(rel string) {
		line := rel
		for i, f := range appFrameworks {
			if !contains(f.manifests, path.Base(rel)) {
				continue
			}
			verdict := "-"
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err == nil && ds[i].In(rel) {
				verdict = "+"
			}
			line += " " + f.name + verdict
		}
		lines = append(lines, line)
	}
	for _, f := range appFrameworks {
		for _, m := range f.manifests {
			if _, ok := files[m]; !ok {
				add(m)
			}
		}
	}
	for p := range files {
		if isManifest(p) {
			add(p)
		}
	}
	sort.Strings(lines)
	return strings.Join(slices.Compact(lines), "\n")
}

// rederive reports whether rel must be derived again though it is
// unchanged (see manifestState).
func (ix *Indexer) rederive(rel string) bool {
	if !ix.manifestChanged {
		return false
	}
	l := lang.Detect(rel, nil)
	for _, f := range appFrameworks {
		if contains(f.languages, l) {
			return true
		}
	}
	return false
}

func contains(ss []string, s string) bool { return slices.Contains(ss, s) }
