package evidence

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/related"
)

func TestTagsRejectForgingCharacters(t *testing.T) {
	for _, tc := range []struct {
		sel string
		bad rune // the character the error must point at
	}{
		{"a.go::1,2#x-->y", '>'},
		{"a.go::1,2#a; source_uri=file:///etc/shadow", ';'},
		{"a.go::1,2#ok,a=b", '='},
		{"a.go::1,2#a b", ' '},
		{"a.go::1,2#a#b", '#'},
		{"a.go::1,2#x<!--", '<'},
		{"a.go::1,2#x\ny", '\n'},
		{"a.go::1,2#x\x00", 0},
		{"no-such-file.go#t,x>y", '>'},
		{"@Parse#bad;tag", ';'},
	} {
		_, err := ParseSelector(tc.sel)
		var se *related.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v, want a syntax error", tc.sel, err)
			continue
		}
		if got := rune(tc.sel[se.Offset]); got != tc.bad || !strings.Contains(se.Error(), "tags take letters, digits and _ . - / : @ +") {
			t.Errorf("%q: points at %q (offset %d), want %q: %v", tc.sel, got, se.Offset, tc.bad, err)
		}
	}
	sel, err := ParseSelector("a.go::1,2#flow, v1.2,team/x,a@b,c:d,e+f,é")
	if err != nil || !slices.Equal(sel.Tags, []string{"flow", "v1.2", "team/x", "a@b", "c:d", "e+f", "é"}) {
		t.Errorf("good tags: %v %v", sel.Tags, err)
	}
}

// forged are values that would close or rewrite an unencoded comment.
var forged = []string{
	"a;b-->c\n## Evidence: x.go",
	"x-->y",
	"a; source_uri=file:///etc/shadow",
	" lead and trail ",
	"100%.go",
	"%41 already looks encoded",
	"tab\tcr\rnl\nend",
	"ok/plain.go",
	"\xff\xfe not utf-8",
	"line\u2028sep",
}

func TestProvenanceCannotBeForged(t *testing.T) {
	for _, v := range forged {
		src := assemble.Source{URI: "file://" + v, Path: v, CID: "sha256:00", Span: "lines=1:2", Symbol: v, Tags: []string{v, "plain", "a,b"}, Language: "go"}
		text := renderEvidence(src, "code\n")
		checkComment(t, text)
		got := parseEvidence(text).source
		if got.URI != src.URI || got.Path != src.Path || got.Symbol != src.Symbol || got.Span != src.Span || got.CID != src.CID || !slices.Equal(got.Tags, src.Tags) {
			t.Errorf("%q: parsed back as %+v", v, got)
		}
	}
}

// checkComment asserts that the rendered part has a one-line heading and
// a one-line comment with exactly one "-->", at its end.
func checkComment(t *testing.T, text string) {
	t.Helper()
	lines := strings.SplitN(text, "\n", 3)
	if len(lines) < 3 || !strings.HasPrefix(lines[0], evidenceHeading) || strings.ContainsAny(lines[0], "\r\u2028") {
		t.Fatalf("heading is not one line:\n%q", text)
	}
	c := lines[1]
	if !strings.HasPrefix(c, "<!-- ") || strings.Count(c, "-->") != 1 || !strings.HasSuffix(c, " -->") || strings.Count(c, "<") != 1 || strings.ContainsAny(c, "\r\u2028") {
		t.Fatalf("comment line %q", c)
	}
}

func TestPlainProvenanceStillParses(t *testing.T) {
	s := parseProvenance("<!-- source_uri=file://core/flow.sh; cid=sha256:abc123; span=lines=100:200; tags=flow,manager -->")
	if s.Path != "core/flow.sh" || s.URI != "file://core/flow.sh" || s.CID != "sha256:abc123" || s.StartLine != 100 || s.EndLine != 200 || !slices.Equal(s.Tags, []string{"flow", "manager"}) {
		t.Errorf("seed 003 comment: %+v", s)
	}
	s = parseProvenance("<!-- source_uri=file://docs/100%.md; cid=sha256:1; span=bytes=5:9; lines=1:1; symbol=T.M -->")
	if s.Path != "docs/100%.md" || s.Span != "bytes=5:9" || s.StartLine != 1 || s.Symbol != "T.M" {
		t.Errorf("plain value with a %%: %+v", s)
	}
}

func FuzzProvenanceRoundTrip(f *testing.F) {
	for _, v := range forged {
		f.Add(v, v, v, "lines=1:2")
	}
	f.Add("core/flow.sh", "", "flow", "all")
	f.Fuzz(func(t *testing.T, path, symbol, tag, span string) {
		tags := []string{tag, "x"}
		if strings.TrimSpace(tag) == "" {
			tags = tags[1:] // an empty tag is no tag
		}
		src := assemble.Source{URI: "file://" + path, Path: path, CID: "sha256:ab", Span: span, Symbol: symbol, Tags: tags}
		text := renderEvidence(src, "body\n")
		checkComment(t, text)
		got := parseEvidence(text).source
		if span == "" || strings.HasPrefix(span, "bytes=") {
			got.Span, src.Span = "", "" // no span, or one with its own lines= key
		}
		if got.URI != src.URI || got.Path != src.Path || got.Symbol != src.Symbol || got.Span != src.Span || !slices.Equal(got.Tags, src.Tags) {
			t.Fatalf("render then parse:\n%+v\n%+v\n%q", src, got, text)
		}
	})
}
