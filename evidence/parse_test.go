package evidence

import (
	"errors"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/related"
)

func TestParsePartName(t *testing.T) {
	cases := []struct {
		in   string
		ok   bool
		want PartName
	}{
		{"100_flow_sh.evidence.md", true, PartName{Rank: "100", Kind: "flow_sh", Role: assemble.Evidence}},
		{"200_test_flow_sh.evidence.md.skip", true, PartName{Rank: "200", Kind: "test_flow_sh", Role: assemble.Evidence, Skip: true}},
		{"300_example.evidence.link", true, PartName{Rank: "300", Kind: "example", Role: assemble.Evidence, Link: true}},
		{"000_policy.system.md", true, PartName{Rank: "000", Kind: "policy", Role: assemble.System}},
		{"010_request.user.md", true, PartName{Rank: "010", Kind: "request", Role: assemble.User}},
		{"110_flow.v2.evidence.md", true, PartName{Rank: "110", Kind: "flow.v2", Role: assemble.Evidence}},
		{"10_short.evidence.md", false, PartName{}},
		{"100flow.evidence.md", false, PartName{}},
		{"100_.evidence.md", false, PartName{}},
		{"100_x.assistant.md", false, PartName{}},
		{"100_x.system.link", false, PartName{}},
		{"100_x y.evidence.md", false, PartName{}},
		{"notes.txt", false, PartName{}},
		{"100_x.evidence.md.bak", false, PartName{}},
	}
	for _, c := range cases {
		got, ok := ParsePartName(c.in)
		if ok != c.ok || ok && got != c.want {
			t.Errorf("ParsePartName(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
		if ok && got.String() != c.in {
			t.Errorf("%q renders back as %q", c.in, got.String())
		}
	}
}

func TestParseSelector(t *testing.T) {
	cases := []struct {
		in   string
		want related.Target
	}{
		{"core/flow.sh", related.Target{Path: "core/flow.sh"}},
		{"core/flow.sh::100,200", related.Target{Path: "core/flow.sh", Start: 100, End: 200}},
		{"core/flow.sh::100", related.Target{Path: "core/flow.sh", Start: 100}},
		{"core/flow.sh::100c,500c", related.Target{Path: "core/flow.sh", Start: 100, End: 500, Bytes: true}},
		{"core/flow.sh#flow,manager", related.Target{Path: "core/flow.sh", Tags: []string{"flow", "manager"}}},
		{"core/flow.sh::100,200#bug", related.Target{Path: "core/flow.sh", Start: 100, End: 200, Tags: []string{"bug"}}},
		{"a.go::@Server.Serve", related.Target{Path: "a.go", Symbol: "Server.Serve"}},
		{"@Parse#core", related.Target{Symbol: "Parse", Tags: []string{"core"}}},
	}
	for _, c := range cases {
		got, err := ParseSelector(c.in)
		if err != nil {
			t.Errorf("ParseSelector(%q): %v", c.in, err)
			continue
		}
		if got.String() != c.in || got.Path != c.want.Path || got.Start != c.want.Start || got.End != c.want.End || got.Bytes != c.want.Bytes || got.Symbol != c.want.Symbol || strings.Join(got.Tags, ",") != strings.Join(c.want.Tags, ",") {
			t.Errorf("ParseSelector(%q) = %+v (%s)", c.in, got.Target, got)
		}
	}
	for in, col := range map[string]int{"a.go::": 7, "a.go::1x": 8, "a.go::5,2": 9, "@": 2, "a.go::1,2c": 9, "::5": 1} {
		_, err := ParseSelector(in)
		var se *related.SyntaxError
		if !errors.As(err, &se) || se.Offset+1 != col {
			t.Errorf("ParseSelector(%q): %v, want a syntax error at column %d", in, err, col)
		}
	}
}

func TestEvidenceRoundTrip(t *testing.T) {
	src := assemble.Source{URI: "file://a/b.go", Path: "a/b.go", CID: "sha256:00", Span: "lines=3:9", Symbol: "T.M", Tags: []string{"x", "y"}, Language: "go"}
	for _, code := range []string{"func f() {}\n", "no newline", "", "has ```go\nfences\n```\ninside\n", "\n\nleading blank lines\n"} {
		text := renderEvidence(src, code)
		p := parseEvidence(text)
		if p.heading != "a/b.go" || p.source.Span != "lines=3:9" || p.source.StartLine != 3 || p.source.EndLine != 9 || p.source.Symbol != "T.M" || strings.Join(p.source.Tags, ",") != "x,y" || p.lang != "go" {
			t.Errorf("parse(render(%q)) = %+v", code, p)
		}
		want := code
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if p.code != want {
			t.Errorf("code %q came back as %q", code, p.code)
		}
	}
	if p := parseEvidence("Just a note.\n\n```go\na\n```\nmore\n"); p.code != "" || p.body != "Just a note.\n\n```go\na\n```\nmore" {
		t.Errorf("prose part: %+v", p)
	}
}

func FuzzParsePartName(f *testing.F) {
	for _, s := range []string{"100_flow_sh.evidence.md", "200_x.evidence.md.skip", "300_e.evidence.link", "000_p.system.md", "x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := ParsePartName(s)
		if ok && n.String() != s {
			t.Fatalf("%q parses to %+v which renders as %q", s, n, n.String())
		}
	})
}

func FuzzParseSelector(f *testing.F) {
	for _, s := range []string{"a.go", "a.go::1,2", "a.go::3", "a.go::1c,9c", "a.go#t", "a.go::@F#x", "@T.M", "::", "a::b::c", "a.go::1,2#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := ParseSelector(s)
		if err != nil {
			var se *related.SyntaxError
			if errors.As(err, &se) && (se.Offset < 0 || se.Offset > len(s)) {
				t.Fatalf("%q: offset %d outside the input", s, se.Offset)
			}
			return
		}
		if sel.End != 0 && sel.End < sel.Start {
			t.Fatalf("%q: range %d-%d", s, sel.Start, sel.End)
		}
	})
}

func FuzzParseEvidence(f *testing.F) {
	f.Add(renderEvidence(assemble.Source{URI: "file://a", Path: "a", CID: "sha256:1", Span: "all", Language: "go"}, "x\n"))
	f.Add("## Evidence: x\n<!-- span=lines=1:2 -->\n\n````\n```\n````\n")
	f.Add("plain")
	f.Fuzz(func(t *testing.T, s string) {
		p := parseEvidence(s)
		if p.code != "" && !strings.Contains(s, p.code) {
			t.Fatalf("code %q is not in the part", p.code)
		}
	})
}

// TestCutPartsAreDamaged: a part file cut anywhere inside its comment or
// its code is damaged, and never pristine.
func TestCutPartsAreDamaged(t *testing.T) {
	code := "func f() {\n\treturn\n}\n"
	src := assemble.Source{URI: "file://a/b.go", Path: "a/b.go", CID: CID([]byte(code)), Span: "lines=3:5", Language: "go"}
	text := renderEvidence(src, code)
	if p := parseEvidence(text); p.damage != "" || !pristine(text) {
		t.Fatalf("a fresh part: damage %q, pristine %v", p.damage, pristine(text))
	}
	open := strings.Index(text, "<!--")
	body := strings.Index(text, "```go\n") + len("```go\n")
	closing := strings.LastIndex(text, "```")
	for i := 0; i < len(text); i++ {
		if pristine(text[:i]) {
			t.Fatalf("cut at %d is pristine: %q", i, text[:i])
		}
		inComment := i > open && i < strings.Index(text, "-->")+3
		inCode := i >= body && i < closing
		if (inComment || inCode) && parseEvidence(text[:i]).damage == "" {
			t.Errorf("cut at %d is not damaged: %q", i, text[:i])
		}
	}
	for _, ok := range []string{
		"Just a note.\n",
		"## Evidence: x\n<!-- my own remark -->\n\nprose\n",
		"## Evidence: x\n\n~~~\ncode\n~~~\n",
		"```js\na ``` b\n```\n",
	} {
		if d := parseEvidence(ok).damage; d != "" {
			t.Errorf("%q is damaged: %s", ok, d)
		}
	}
}

func FuzzRenderedPartIsPristine(f *testing.F) {
	f.Add("func f() {}\n", "go")
	f.Add("```\nfence\n", "")
	f.Add("no newline", "text")
	f.Fuzz(func(t *testing.T, code, lang string) {
		if strings.Trim(lang, "abcdefghijklmnopqrstuvwxyz0123456789+#.-_") != "" {
			return // not a language name dossier writes
		}
		src := assemble.Source{URI: "file://a", Path: "a", CID: CID([]byte(code)), Span: "all", Language: lang}
		text := renderEvidence(src, code)
		if d := parseEvidence(text).damage; d != "" || !pristine(text) {
			t.Fatalf("rendered %q: damage %q, pristine %v", text, d, pristine(text))
		}
	})
}

// TestSelectorPathsWithSeparators: "::" starts a range only where a range
// or a symbol follows; a trailing "::" ends a path that holds "::".
func TestSelectorPathsWithSeparators(t *testing.T) {
	for _, c := range []struct {
		in, path, str string
		start, end    int
		tags          string
	}{
		{"a::b.txt", "a::b.txt", "a::b.txt", 0, 0, ""},
		{"a::b.txt::3,5", "a::b.txt", "a::b.txt::3,5", 3, 5, ""},
		{"a::b.txt#x", "a::b.txt", "a::b.txt#x", 0, 0, "x"},
		{"a::1.txt::", "a::1.txt", "a::1.txt::", 0, 0, ""},
		{"a::1.txt::#x,y", "a::1.txt", "a::1.txt::#x,y", 0, 0, "x,y"},
		{"core/flow.sh::2,4#t", "core/flow.sh", "core/flow.sh::2,4#t", 2, 4, "t"},
		{"x::y::@F", "x::y", "x::y::@F", 0, 0, ""},
	} {
		sel, err := ParseSelector(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if sel.Path != c.path || sel.Start != c.start || sel.End != c.end || strings.Join(sel.Tags, ",") != c.tags || sel.String() != c.str {
			t.Errorf("%q: path %q %d-%d tags %v, renders %q", c.in, sel.Path, sel.Start, sel.End, sel.Tags, sel.String())
		}
		if again, err := ParseSelector(sel.String()); err != nil || again.Path != sel.Path || again.Start != sel.Start {
			t.Errorf("%q renders as %q, which parses to %+v, %v", c.in, sel.String(), again, err)
		}
	}
	for _, bad := range []string{"a.go::5c,5c", "a.go::10x", "a::b::1,x"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("%q parses", bad)
		}
	}
}
