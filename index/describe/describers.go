package describe

import (
	"fmt"
	"strings"

	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/index/segment"
)

// Section is the atomic indexing unit: one section makes one chunk.
type Section struct {
	Describer  string
	Kind       string
	Flavor     string
	Path       string
	Language   string
	SourceType string
	Symbol     string
	Parents    []string
	Signature  string
	Key        string // section key within the symbol
	Finder     string // finder header; the snippet is Finder + "\n" + Artifact
	Artifact   string
	Outline    bool // Artifact is synthesized, not a span of the file
	StartLine  int
	EndLine    int
	StartByte  int
	EndByte    int
	Part       int
	Parts      int
}

// single is a description of exactly one section.
type single struct{ s Section }

func (d single) Sections() []Section { return []Section{d.s} }

// base fills the fields every section shares.
func base(name string, fc *FileContext, seg segment.Segment, key, finder string) Section {
	return Section{
		Describer: name, Kind: string(seg.Kind), Path: fc.Path, Language: fc.Language, SourceType: fc.SourceType,
		Symbol: seg.Name, Parents: seg.Parents, Signature: seg.Signature, Key: key, Finder: finder,
		Artifact: seg.Text, Outline: seg.Outline, StartLine: seg.StartLine, EndLine: seg.EndLine, StartByte: seg.StartByte,
		EndByte: seg.EndByte, Part: seg.Part, Parts: seg.Parts,
	}
}

// finder builds a finder header from labelled lines, skipping empty values.
func finder(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if v := strings.TrimSpace(pairs[i+1]); v != "" {
			fmt.Fprintf(&b, "%s: %s\n", pairs[i], v)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func qualified(seg segment.Segment) string {
	return strings.Join(append(append([]string(nil), seg.Parents...), seg.Name), ".")
}

func codeKey(seg segment.Segment) string {
	switch seg.Kind {
	case segment.Function, segment.Method:
		return "body"
	case segment.Imports:
		return "imports"
	case segment.TopLevel:
		return "top"
	}
	if seg.Outline {
		return "outline"
	}
	return "decl"
}

// codeDescriber describes functions, types and top-level code.
type codeDescriber struct{}

func (codeDescriber) Name() string { return "code" }
func (codeDescriber) Description() string {
	return "source code: functions, methods, type outlines and top-level code, with path, enclosing symbols, signature and doc in the finder"
}

func (codeDescriber) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	if isTestFunc(fc, seg) {
		return nil, false
	}
	f := finder("path", fc.Path, "language", fc.Language, "symbol", qualifiedIf(seg), "kind", string(seg.Kind),
		"signature", seg.Signature, "doc", seg.Doc)
	s := base("code", fc, seg, codeKey(seg), f)
	if seg.Outline {
		s.Flavor = "outline"
	}
	return single{s}, true
}

func qualifiedIf(seg segment.Segment) string {
	if seg.Name == "" {
		return ""
	}
	return qualified(seg)
}

// testDescriber describes test functions: same shape as code, flavour
// "test", and the name of what they test in the finder.
type testDescriber struct{}

func (testDescriber) Name() string { return "test" }
func (testDescriber) Description() string {
	return "test functions and methods in test files; flavour test, subject in the finder"
}

func isTestFunc(fc *FileContext, seg segment.Segment) bool {
	if fc.SourceType != lang.SrcTest || (seg.Kind != segment.Function && seg.Kind != segment.Method) {
		return false
	}
	n := seg.Name
	return strings.HasPrefix(n, "Test") || strings.HasPrefix(n, "Benchmark") || strings.HasPrefix(n, "Fuzz") ||
		strings.HasPrefix(n, "Example") || strings.HasPrefix(n, "test") || strings.HasPrefix(n, "it_") ||
		strings.HasPrefix(n, "should") || strings.HasSuffix(n, "Test")
}

func (testDescriber) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	if !isTestFunc(fc, seg) {
		return nil, false
	}
	subject := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(seg.Name, "Test"), "test"), "Benchmark"), "_")
	f := finder("path", fc.Path, "language", fc.Language, "symbol", qualified(seg), "kind", "test "+string(seg.Kind),
		"tests", subject, "signature", seg.Signature, "doc", seg.Doc)
	s := base("test", fc, seg, "body", f)
	s.Flavor = "test"
	return single{s}, true
}

// docDescriber describes Markdown sections; the finder carries the heading
// path and the tail of the previous section (prose overlap).
type docDescriber struct{}

func (docDescriber) Name() string { return "markdown" }
func (docDescriber) Description() string {
	return "Markdown sections by H1-H3 heading, heading path and prose overlap in the finder"
}

func (docDescriber) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	heading := strings.Join(append(append([]string(nil), seg.Parents...), seg.Name), " > ")
	f := finder("path", fc.Path, "type", fc.SourceType, "section", heading, "previous", seg.Context)
	s := base("markdown", fc, seg, seg.Key, f)
	s.Flavor = fc.SourceType
	return single{s}, true
}

// configDescriber describes config keys; OpenAPI paths get flavour api_endpoint.
type configDescriber struct{}

func (configDescriber) Name() string { return "config" }
func (configDescriber) Description() string {
	return "JSON, YAML and TOML by top-level key (nested keys when large); OpenAPI paths as endpoints"
}

func (configDescriber) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	keyPath := strings.Join(append(append([]string(nil), seg.Parents...), seg.Name), ".")
	f := finder("path", fc.Path, "type", fc.SourceType, "key", keyPath)
	s := base("config", fc, seg, seg.Key, f)
	s.Flavor = fc.SourceType
	if fc.SourceType == lang.SrcAPIEndpoint && len(seg.Parents) > 0 && seg.Parents[0] == "paths" {
		s.Flavor = "api_endpoint"
	}
	return single{s}, true
}

// textDescriber describes sliding windows over other text.
type textDescriber struct{}

func (textDescriber) Name() string { return "text" }
func (textDescriber) Description() string {
	return "other text as 1000-token windows with 200-token overlap"
}

func (textDescriber) Describe(fc *FileContext, seg segment.Segment) (Description, bool) {
	f := finder("path", fc.Path, "language", fc.Language, "type", fc.SourceType)
	return single{base("text", fc, seg, "window", f)}, true
}
