// Package describe turns segments into sections and sections into chunks,
// following IDX-069 (seed 001): describers are registered per segment kind,
// each decides whether it applies and what flavour it gives, and chunk
// construction from sections is invariant, pure and deterministic.
package describe

import (
	"fmt"
	"sort"

	"github.com/dossierhq/dossier/index/appgraph"
	"github.com/dossierhq/dossier/index/segment"
	"github.com/dossierhq/dossier/store"
)

// FileContext is everything later stages know about a file; nothing after
// it reads the disk.
type FileContext struct {
	Path       string // slash-separated, relative to the root
	Abs        string
	Contents   []byte
	Language   string
	SourceType string
	Repo       store.Repo
	// App holds what a framework extractor (index/laravel, ...) read from
	// the file when it belongs to an application (nil otherwise); its
	// Framework names the framework.
	App *appgraph.Facts
	// Facts are label, value pairs a describer puts in the finder: the
	// file a history file tells of, a kept answer's flow, request, model
	// and date.
	Facts []string
}

// Describer builds a description of one segment. It returns false when it
// does not apply to the segment.
type Describer interface {
	// Name identifies the describer in chunks, logs and errors.
	Name() string
	// Description says what the describer handles.
	Description() string
	Describe(fc *FileContext, seg segment.Segment) (Description, bool)
}

// Description yields the sections of one described segment.
type Description interface {
	Sections() []Section
}

// Registry groups describers by segment kind.
type Registry struct {
	byKind map[segment.Kind][]Describer
	pairs  map[[2]string]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{byKind: map[segment.Kind][]Describer{}, pairs: map[[2]string]bool{}}
}

// Register adds d for kind. A describer may serve several kinds and a kind
// may have several describers; the same (describer, kind) pair twice is an error.
func (r *Registry) Register(kind segment.Kind, d Describer) error {
	pair := [2]string{d.Name(), string(kind)}
	if r.pairs[pair] {
		return fmt.Errorf("describer %q is already registered for kind %q", d.Name(), kind)
	}
	r.pairs[pair] = true
	r.byKind[kind] = append(r.byKind[kind], d)
	return nil
}

// Describers returns the describers of kind in registration order.
func (r *Registry) Describers(kind segment.Kind) []Describer {
	return append([]Describer(nil), r.byKind[kind]...)
}

// Kinds lists the kinds that have describers, sorted.
func (r *Registry) Kinds() []segment.Kind {
	out := make([]segment.Kind, 0, len(r.byKind))
	for k := range r.byKind {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

var codeKinds = []segment.Kind{
	segment.Function, segment.Method, segment.Class, segment.Struct, segment.Interface, segment.Enum,
	segment.Trait, segment.Impl, segment.TypeDef, segment.Module, segment.Record, segment.Imports, segment.TopLevel,
}

// Default returns the registry of built-in describers.
func Default() *Registry {
	r := NewRegistry()
	must := func(err error) {
		if err != nil {
			panic(err) // the built-in table is static; a duplicate is a bug caught by tests
		}
	}
	// Framework describers come first: a description of theirs that
	// replaces a segment's code chunk ends the segment's turn.
	for _, k := range []segment.Kind{segment.Class, segment.Method, segment.TopLevel} {
		must(r.Register(k, laravelDescriber{}))
	}
	for _, d := range []jsAppDescriber{
		{"next", "Next.js: routes from app/ (page, route handlers per HTTP method) and pages/ (pages, pages/api), the route modules as controllers"},
		{"express", "Express: routes (app/router.METHOD, .route() chains, mounted routers' prefixes across files), handler modules as controllers and their functions"},
	} {
		for _, k := range []segment.Kind{segment.Function, segment.Method, segment.TopLevel} {
			must(r.Register(k, d))
		}
	}
	for _, k := range []segment.Kind{segment.Class, segment.Method, segment.Function, segment.TopLevel} {
		must(r.Register(k, djangoDescriber{}))
	}
	for _, k := range []segment.Kind{segment.Section, segment.Window} {
		must(r.Register(k, historyDescriber{}))
	}
	for _, k := range []segment.Kind{segment.Function, segment.Method} {
		must(r.Register(k, testDescriber{}))
	}
	for _, k := range codeKinds {
		must(r.Register(k, codeDescriber{}))
	}
	must(r.Register(segment.Section, docDescriber{}))
	must(r.Register(segment.ConfigKey, configDescriber{}))
	must(r.Register(segment.Window, textDescriber{}))
	return r
}

// Describe runs every describer registered for each segment's kind and
// collects their sections in segment order. A framework describer's
// description may stand in for the segment's code chunk: then the
// describers after it are not asked. A describer that panics on a
// segment (a bug, or facts it cannot handle) costs its sections of that
// segment, returned as a Problem at the segment's line; the describers
// after it describe the segment as if it had not applied.
func (r *Registry) Describe(fc *FileContext, segs []segment.Segment) ([]Section, []Problem) {
	var out []Section
	var problems []Problem
	for _, seg := range segs {
		for _, d := range r.byKind[seg.Kind] {
			secs, done, err := describeSafely(d, fc, seg)
			if err != nil {
				problems = append(problems, Problem{Line: seg.StartLine, Describer: d.Name(),
					Err: fmt.Sprintf("describer %q failed on %s %q: %v", d.Name(), seg.Kind, seg.Name, err)})
				continue
			}
			out = append(out, secs...)
			if done {
				break
			}
		}
	}
	return out, problems
}

// describeSafely is one describer's sections of seg and whether they
// replace the segment's code chunk; err is its panic.
func describeSafely(d Describer, fc *FileContext, seg segment.Segment) (secs []Section, done bool, err any) {
	defer func() {
		if v := recover(); v != nil {
			secs, done, err = nil, false, v
		}
	}()
	desc, ok := d.Describe(fc, seg)
	if !ok {
		return nil, false, nil
	}
	_, done = desc.(replacing)
	return desc.Sections(), done, nil
}
