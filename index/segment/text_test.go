package segment

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dossierhq/dossier/index/lang"
)

// loc is the locator of a document or config segment.
type loc struct {
	name       string
	parents    []string
	key        string
	start, end int
}

func locs(segs []Segment) []loc {
	var out []loc
	for _, s := range segs {
		out = append(out, loc{s.Name, s.Parents, s.Key, s.StartLine, s.EndLine})
	}
	return out
}

// expectLocs compares got with want and checks the invariants.
func expectLocs(t *testing.T, src []byte, res Result, kind Kind, want []loc) {
	t.Helper()
	if got := locs(res.Segments); !reflect.DeepEqual(got, want) {
		t.Errorf("segments:\n got %+v\nwant %+v", got, want)
	}
	for _, s := range res.Segments {
		if s.Kind != kind {
			t.Errorf("%q: kind %s, want %s", s.Name, s.Kind, kind)
		}
	}
	if err := checkSegments(src, res, false); err != nil {
		t.Error(err)
	}
}

const guideMD = `Intro before any heading.

# Guide

Welcome.

## Install

### Linux

Run the installer:

` + "```sh" + `
# not a heading
make install
` + "```" + `

#### Details

Deep detail stays here.

## Usage
Use it.
`

func TestMarkdownSections(t *testing.T) {
	src := []byte(guideMD)
	res := segment(t, lang.Markdown, lang.SrcDoc, src)
	expectLocs(t, src, res, Section, []loc{
		{"", nil, "preamble", 1, 1},
		{"Guide", nil, "guide", 3, 5},
		// "## Install" has no body of its own: it joins "### Linux", and
		// both the fenced "# not a heading" and "#### Details" stay inside.
		{"Linux", []string{"Guide", "Install"}, "guide/install/linux", 7, 20},
		{"Usage", []string{"Guide"}, "guide/usage", 22, 23},
	})
	if len(res.Segments) != 4 {
		t.FailNow()
	}
	linux := res.Segments[2]
	if !strings.HasPrefix(linux.Text, "## Install\n\n### Linux") || !strings.Contains(linux.Text, "#### Details") {
		t.Errorf("Linux section text:\n%s", linux.Text)
	}
	// Context is the tail of the previous section, nothing older.
	wantCtx := []string{"", "Intro before any heading.\n\n", "# Guide\n\nWelcome.\n\n", guideMD[linux.StartByte:res.Segments[3].StartByte]}
	for i, s := range res.Segments {
		if s.Context != wantCtx[i] {
			t.Errorf("%q: Context %q, want %q", s.Name, s.Context, wantCtx[i])
		}
	}
}

func TestMarkdownHeadingSyntax(t *testing.T) {
	src := []byte("# One #\ntext\n#NoSpace\n##\tTab Title\nmore\n~~~\n## fenced\n~~~~\n### Three: a/b!\nend\n")
	res := segment(t, lang.Markdown, lang.SrcDoc, src)
	expectLocs(t, src, res, Section, []loc{
		{"One", nil, "one", 1, 3},
		{"Tab Title", []string{"One"}, "one/tab-title", 4, 8},
		{"Three: a/b!", []string{"One", "Tab Title"}, "one/tab-title/three-a-b", 9, 10},
	})
}

func TestMarkdownLongSection(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Big\n\n")
	for i := range 300 {
		fmt.Fprintf(&b, "Line %03d of a long section, with some prose to fill it.\n", i)
	}
	b.WriteString("\n## Next\ntail\n")
	src := []byte(b.String())
	res := segment(t, lang.Markdown, lang.SrcDoc, src)
	if err := checkSegments(src, res, false); err != nil {
		t.Fatal(err)
	}
	var parts []Segment
	for _, s := range res.Segments {
		if s.Name == "Big" {
			parts = append(parts, s)
		}
	}
	if len(parts) < 3 || parts[0].StartByte != 0 || parts[len(parts)-1].EndLine != 302 {
		t.Fatalf("got %d parts of Big, want >= 3 covering lines 1-302", len(parts))
	}
	for i, p := range parts {
		if p.Part != i+1 || p.Parts != len(parts) || p.Key != "big" {
			t.Errorf("part %d: Part=%d Parts=%d Key=%q", i, p.Part, p.Parts, p.Key)
		}
		if EstimateTokens(len(p.Text)) > MaxTokens {
			t.Errorf("part %d has %d tokens", p.Part, EstimateTokens(len(p.Text)))
		}
		if i > 0 {
			over := parts[i-1].EndByte - p.StartByte
			if over <= 0 || over > ProseOverlap*4 || src[p.StartByte-1] != '\n' {
				t.Errorf("parts %d and %d overlap by %d bytes, want (0, %d] from a line start", i, i+1, over, ProseOverlap*4)
			}
		}
	}
	next := res.Segments[len(res.Segments)-1]
	if next.Name != "Next" || !strings.HasSuffix(next.Context, "Line 299 of a long section, with some prose to fill it.\n\n") ||
		len(next.Context) > ProseOverlap*4 {
		t.Errorf("Next: name %q, context of %d bytes ending %q", next.Name, len(next.Context), clip(next.Context))
	}
}

func TestJSONKeys(t *testing.T) {
	var deps []string
	for i := range 60 {
		deps = append(deps, fmt.Sprintf("    %q: %q", fmt.Sprintf("pkg-%02d", i), "^1.0.0-"+strings.Repeat("x", 60)))
	}
	big := "{\n  \"name\": \"demo\",\n  \"version\": \"1.0.0\",\n  \"dep:s\": {\n" + strings.Join(deps, ",\n") +
		"\n  },\n  \"private\": true\n}\n"
	tests := []struct {
		name, src string
		kind      Kind
		want      []loc
	}{
		{"small keys merge", `{"name": "demo", "version": "1.0.0", "scripts": {"build": "make"}}`, ConfigKey,
			[]loc{{"name, version, scripts", nil, "name-version-scripts", 1, 1}}},
		// The 60 entries (about 22 tokens each) merge in runs of up to
		// MinTokens; the key name's ':' does not confuse the split.
		{"big object split by child keys", big, ConfigKey, append(append(
			[]loc{{"name, version", nil, "name-version", 2, 3}},
			depGroups(0, 9, 18, 27, 36, 45, 54, 60)...),
			loc{"private", nil, "private", 66, 66})},
		{"invalid JSON", `{"a": 1,, "b": 2}`, Window, []loc{{"", nil, "", 1, 1}}},
		{"not an object", `[1, 2, 3]`, Window, []loc{{"", nil, "", 1, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			expectLocs(t, src, segment(t, lang.JSON, lang.SrcConfig, src), tt.kind, tt.want)
		})
	}
}

// depGroups gives the locators of runs of "pkg-NN" keys under "dep:s"
// (line 5 holds pkg-00), each run starting at one of bounds.
func depGroups(bounds ...int) []loc {
	var out []loc
	for i := 0; i+1 < len(bounds); i++ {
		var names []string
		for n := bounds[i]; n < bounds[i+1]; n++ {
			names = append(names, fmt.Sprintf("pkg-%02d", n))
		}
		out = append(out, loc{strings.Join(names, ", "), []string{"dep:s"}, "dep-s." + strings.Join(names, "-"),
			5 + bounds[i], 4 + bounds[i+1]})
	}
	return out
}

func TestYAMLKeys(t *testing.T) {
	cfg := "# Service settings.\nname: demo\n\n# Port to listen on.\nport: 8080\nlist:\n  - a\n  - b\n"
	api := "openapi: 3.0.0\ninfo:\n  title: Demo\n# The endpoints.\npaths:\n  /items:\n    get:\n      summary: List\n" +
		"  \"/items/{id}\":\n    get:\n      summary: One\ncomponents: {}\n"
	bigVal := strings.Repeat("x", 70)
	var big strings.Builder
	big.WriteString("top: 1\nservices:\n")
	for i := range 3 {
		fmt.Fprintf(&big, "  svc%d:\n", i)
		for j := range 25 {
			fmt.Fprintf(&big, "    k%02d: %s\n", j, bigVal)
		}
	}
	tests := []struct {
		name, src, srcType string
		want               []loc
	}{
		{"comments belong to the key below", cfg, lang.SrcConfig, []loc{{"name, port, list", nil, "name-port-list", 1, 8}}},
		{"openapi paths split per path", api, lang.SrcAPIEndpoint, []loc{
			{"openapi, info", nil, "openapi-info", 1, 3},
			{"/items", []string{"paths"}, "paths.items", 6, 8},
			{"/items/{id}", []string{"paths"}, "paths.items-id", 9, 11},
			{"components", nil, "components", 12, 12},
		}},
		{"paths of a plain config stay whole", api, lang.SrcConfig, []loc{
			{"openapi, info, paths, components", nil, "openapi-info-paths-components", 1, 12},
		}},
		{"big key split by child keys", big.String(), lang.SrcConfig, []loc{
			{"top", nil, "top", 1, 1},
			{"svc0", []string{"services"}, "services.svc0", 3, 28},
			{"svc1", []string{"services"}, "services.svc1", 29, 54},
			{"svc2", []string{"services"}, "services.svc2", 55, 80},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			expectLocs(t, src, segment(t, lang.YAML, tt.srcType, src), ConfigKey, tt.want)
		})
	}
	// The comment above a key starts its span.
	src := []byte("a: 1\n# About b.\nb: " + strings.Repeat("y", 900) + "\n")
	res := segment(t, lang.YAML, lang.SrcConfig, src)
	if len(res.Segments) != 2 || !strings.HasPrefix(res.Segments[1].Text, "# About b.\nb: ") {
		t.Errorf("want b with its comment, got %+v", locs(res.Segments))
	}
}

func TestTOMLKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString("title = \"demo\"\n\n[server]\n")
	for i := range 30 {
		fmt.Fprintf(&b, "key%02d = %q\n", i, strings.Repeat("v", 40))
	}
	b.WriteString("\n# Plugins.\n[[plugins]]\nname = \"x\"\n")
	src := []byte(b.String())
	// Keys under [server] belong to the table; they are not top-level keys.
	expectLocs(t, src, segment(t, lang.TOML, lang.SrcConfig, src), ConfigKey, []loc{
		{"title", nil, "title", 1, 1},
		{"server", nil, "server", 3, 33},
		{"plugins", nil, "plugins", 35, 37},
	})
	small := []byte("a = 1\n[t]\nb = 2\n")
	expectLocs(t, small, segment(t, lang.TOML, lang.SrcConfig, small), ConfigKey, []loc{{"a, t", nil, "a-t", 1, 3}})
}

func TestWindows(t *testing.T) {
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, "line %04d: %s\n", i, strings.Repeat("w", 38)) // 50 bytes a line
	}
	src := []byte(b.String())
	for _, tc := range []struct{ language, srcType string }{{lang.Text, lang.SrcText}, {lang.Go, lang.SrcGenerated}} {
		res := segment(t, tc.language, tc.srcType, src)
		if err := checkSegments(src, res, false); err != nil {
			t.Fatal(err)
		}
		ws := res.Segments
		if len(ws) != 10 || ws[0].StartByte != 0 || ws[len(ws)-1].EndByte != len(src)-1 {
			t.Fatalf("%s: %d windows, want 10 covering the file", tc.language, len(ws))
		}
		for i, w := range ws {
			if w.Kind != Window || w.Part != i+1 || w.Parts != len(ws) || EstimateTokens(len(w.Text)) > WindowTokens {
				t.Errorf("window %d: %s part %d/%d, %d tokens", i, w.Kind, w.Part, w.Parts, EstimateTokens(len(w.Text)))
			}
			if i > 0 {
				if over := EstimateTokens(ws[i-1].EndByte - w.StartByte); over != WindowOverlap {
					t.Errorf("windows %d and %d overlap by %d tokens, want %d", i, i+1, over, WindowOverlap)
				}
			}
		}
	}
	if res := segment(t, lang.Text, lang.SrcText, []byte(" \n\t\n")); len(res.Segments) != 0 {
		t.Errorf("blank text gave %d windows", len(res.Segments))
	}
}

func TestOversizedFunction(t *testing.T) {
	var b strings.Builder
	b.WriteString("package p\n\n// Huge does a lot.\nfunc Huge() int {\n\tx := 0\n")
	for i := range 500 {
		fmt.Fprintf(&b, "\tx += %d // step %d\n", i, i)
	}
	b.WriteString("\treturn x\n}\n\nfunc Small() {}\n")
	src := []byte(b.String())
	res := segment(t, lang.Go, lang.SrcCode, src)
	if err := checkSegments(src, res, true); err != nil {
		t.Fatal(err)
	}
	var parts []Segment
	for _, s := range res.Segments {
		if s.Name == "Huge" {
			parts = append(parts, s)
		}
	}
	if len(parts) < 2 || parts[0].StartLine != 3 || parts[len(parts)-1].EndLine != 507 {
		t.Fatalf("got %d parts, want >= 2 covering lines 3-507: %+v", len(parts), locs(parts))
	}
	for i, p := range parts {
		if p.Kind != Function || p.Part != i+1 || p.Parts != len(parts) || EstimateTokens(len(p.Text)) > MaxTokens {
			t.Errorf("part %d: %s %d/%d, %d tokens", i, p.Kind, p.Part, p.Parts, EstimateTokens(len(p.Text)))
		}
		if (i == 0) != (p.Doc == "// Huge does a lot.") || p.Signature != "func Huge() int" {
			t.Errorf("part %d: Doc %q Signature %q", p.Part, p.Doc, p.Signature)
		}
		// Parts are contiguous and line-aligned: no overlap, no gap.
		if i > 0 && (p.StartByte < parts[i-1].EndByte || strings.TrimSpace(string(src[parts[i-1].EndByte:p.StartByte])) != "" ||
			p.StartLine != parts[i-1].EndLine+1) {
			t.Errorf("parts %d and %d are not contiguous", i, i+1)
		}
	}
	if last := res.Segments[len(res.Segments)-1]; last.Name != "Small" || last.Parts != 1 {
		t.Errorf("last segment %q part %d/%d", last.Name, last.Part, last.Parts)
	}
}

func TestMinifiedSingleLine(t *testing.T) {
	line := "var s=\"" + strings.Repeat("€", 4000) + strings.Repeat("a€é😀", 1500) + "\";"
	for _, tc := range []struct {
		language string
		kind     Kind
		overlap  bool
	}{{lang.JavaScript, TopLevel, false}, {lang.Text, Window, true}} {
		src := []byte(line)
		res := segment(t, tc.language, lang.SrcCode, src)
		if err := checkSegments(src, res, false); err != nil {
			t.Fatal(err)
		}
		ws := res.Segments
		if len(ws) < 5 || ws[0].StartByte != 0 || ws[len(ws)-1].EndByte != len(src) {
			t.Fatalf("%s: %d pieces, want >= 5 covering the line", tc.language, len(ws))
		}
		for i, w := range ws {
			if w.Kind != tc.kind || !utf8.ValidString(w.Text) || w.StartLine != 1 || w.EndLine != 1 {
				t.Errorf("%s piece %d: %s valid=%v lines %d-%d", tc.language, i, w.Kind, utf8.ValidString(w.Text), w.StartLine, w.EndLine)
			}
			if i > 0 && (ws[i-1].EndByte > w.StartByte) != tc.overlap {
				t.Errorf("%s pieces %d and %d: overlap %v", tc.language, i, i+1, !tc.overlap)
			}
		}
	}
}

func TestSyntaxErrorKeepsFunctions(t *testing.T) {
	src := []byte("package p\n\n// Before is fine.\nfunc Before() int {\n\treturn 1\n}\n\nfunc Broken( {\n\tx :=\n}\n\n" +
		"// After is fine too.\nfunc After() int {\n\treturn 2\n}\n")
	res := segment(t, lang.Go, lang.SrcCode, src)
	if !res.ParseError || res.Fallback != "" {
		t.Errorf("ParseError=%v Fallback=%q, want true and no fallback", res.ParseError, res.Fallback)
	}
	if err := checkSegments(src, res, true); err != nil {
		t.Error(err)
	}
	before, after := find(t, res, Function, "Before"), find(t, res, Function, "After")
	if before.StartLine != 3 || before.EndLine != 6 || after.StartLine != 12 || after.EndLine != 15 {
		t.Errorf("Before %d-%d, After %d-%d; want 3-6 and 12-15", before.StartLine, before.EndLine, after.StartLine, after.EndLine)
	}
}

func TestInvalidUTF8(t *testing.T) {
	bad := []byte("package p\n\n// Doc \xff\xfe.\nfunc F() string {\n\treturn \"\xc3\"\n}\n")
	for _, l := range []string{lang.Go, lang.Python, lang.Markdown, lang.JSON, lang.YAML, lang.TOML, lang.Text} {
		res := segment(t, l, lang.SrcCode, bad)
		if err := checkSegments(bad, res, false); err != nil {
			t.Errorf("%s: %v", l, err)
		}
		if len(res.Segments) == 0 {
			t.Errorf("%s: no segments", l)
		}
	}
	if f := find(t, segment(t, lang.Go, lang.SrcCode, bad), Function, "F"); f.Doc != "// Doc \uFFFD." {
		t.Errorf("Doc %q", f.Doc)
	}
}

func TestDeterministic(t *testing.T) {
	inputs := map[string][]byte{lang.Markdown: []byte(guideMD), lang.YAML: []byte("a: 1\nb:\n  c: 2\n"), lang.Text: bytes.Repeat([]byte("xyz\n"), 3000)}
	for _, fx := range fixtures {
		src, err := os.ReadFile(filepath.Join("testdata", fx.file))
		if err != nil {
			t.Fatal(err)
		}
		inputs[fx.language] = src
	}
	p := NewParsers()
	defer p.Close()
	for l, src := range inputs {
		a := File(t.Context(), p, l, lang.SrcCode, src)
		b := File(t.Context(), p, l, lang.SrcCode, src)
		c := segment(t, l, lang.SrcCode, src)
		if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(a, c) {
			t.Errorf("%s: results differ between runs", l)
		}
	}
}
