package segment

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/dossierhq/dossier/index/lang"
)

// checkSegments verifies the invariants every segmentation must keep: spans
// in bounds, exact text for verbatim segments, line numbers that match the
// byte offsets, sorted output and sane part numbers. For code it also checks
// that verbatim segments never overlap (only outlines enclose other chunks).
// src is the input as given; offsets refer to its UTF-8-repaired form.
func checkSegments(src []byte, res Result, code bool) error {
	code = code && res.Fallback == "" // fallback windows overlap by design
	if !utf8.Valid(src) {
		src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	}
	lastStart, lastEnd := -1, -1
	for i, s := range res.Segments {
		where := fmt.Sprintf("segment %d (%s %q, bytes %d-%d)", i, s.Kind, s.Name, s.StartByte, s.EndByte)
		if s.StartByte < 0 || s.StartByte > s.EndByte || s.EndByte > len(src) {
			return fmt.Errorf("%s: span out of bounds (len %d)", where, len(src))
		}
		if s.StartByte < lastStart {
			return fmt.Errorf("%s: not sorted by StartByte (previous starts at %d)", where, lastStart)
		}
		if s.Text == "" {
			return fmt.Errorf("%s: empty text", where)
		}
		if !s.Outline && s.Text != string(src[s.StartByte:s.EndByte]) {
			return fmt.Errorf("%s: text %q != source span %q", where, clip(s.Text), clip(string(src[s.StartByte:s.EndByte])))
		}
		if !utf8.ValidString(s.Text) {
			return fmt.Errorf("%s: text is not valid UTF-8", where)
		}
		if want := 1 + bytes.Count(src[:s.StartByte], []byte("\n")); s.StartLine != want {
			return fmt.Errorf("%s: StartLine %d, want %d", where, s.StartLine, want)
		}
		last := max(s.EndByte-1, s.StartByte)
		if want := 1 + bytes.Count(src[:last], []byte("\n")); s.EndLine != want {
			return fmt.Errorf("%s: EndLine %d, want %d", where, s.EndLine, want)
		}
		if s.Part < 1 || s.Part > s.Parts {
			return fmt.Errorf("%s: part %d of %d", where, s.Part, s.Parts)
		}
		if code && !s.Outline {
			if s.StartByte < lastEnd {
				return fmt.Errorf("%s: overlaps the previous verbatim segment (ends at %d)", where, lastEnd)
			}
			lastEnd = s.EndByte
		}
		lastStart = s.StartByte
	}
	return checkSymbols(src, res)
}

// checkSymbols verifies the member symbols: named, sorted, a non-empty
// span inside one segment's span, with line numbers that match it.
func checkSymbols(src []byte, res Result) error {
	last := -1
	for i, s := range res.Symbols {
		where := fmt.Sprintf("symbol %d (%s %q, bytes %d-%d)", i, s.Kind, s.Name, s.StartByte, s.EndByte)
		switch {
		case s.Name == "":
			return fmt.Errorf("%s: no name", where)
		case s.StartByte < 0 || s.StartByte >= s.EndByte || s.EndByte > len(src):
			return fmt.Errorf("%s: span out of bounds or empty (len %d)", where, len(src))
		case s.StartByte < last:
			return fmt.Errorf("%s: not sorted by StartByte", where)
		case s.StartLine != 1+bytes.Count(src[:s.StartByte], []byte("\n")) || s.EndLine != 1+bytes.Count(src[:s.EndByte-1], []byte("\n")):
			return fmt.Errorf("%s: lines %d-%d do not match the span", where, s.StartLine, s.EndLine)
		}
		held := false
		for _, g := range res.Segments {
			held = held || g.StartByte <= s.StartByte && s.StartByte < g.EndByte
		}
		if !held {
			return fmt.Errorf("%s: starts in no segment", where)
		}
		last = s.StartByte
	}
	return nil
}

// clip shortens s for error messages, keeping both ends.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:40] + "…" + s[len(s)-40:]
}

// segment runs File with fresh parsers.
func segment(t testing.TB, language, srcType string, src []byte) Result {
	t.Helper()
	p := NewParsers()
	defer p.Close()
	return File(context.Background(), p, language, srcType, src)
}

// addFixtureSeeds adds every file in testdata with one of exts to f's corpus.
func addFixtureSeeds(f *testing.F, exts ...string) {
	for _, ext := range exts {
		paths, _ := filepath.Glob(filepath.Join("testdata", "*"+ext))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
}

func FuzzMarkdown(f *testing.F) {
	f.Add([]byte("# T\n\nbody\n"))
	f.Add([]byte("pre\n# A\n## B\n### C\ntext\n#### D\n```\n# no\n```\n"))
	f.Add([]byte("~~~\n# x\n~~~~\n#\n##\t\n###x\n# é ü\n"))
	f.Add([]byte("# only\n# headings\n"))
	f.Add(bytes.Repeat([]byte("a long line of prose é "), 400))
	f.Fuzz(func(t *testing.T, src []byte) {
		res := segment(t, lang.Markdown, lang.SrcDoc, src)
		if err := checkSegments(src, res, false); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzConfig(f *testing.F) {
	for _, l := range []string{"json", "yaml", "toml"} {
		f.Add(l, []byte(`{"a": 1, "b": {"c": [1, 2]}}`))
		f.Add(l, []byte("# c\na: 1\nb:\n  c: 2\n  d: [1]\n---\n"))
		f.Add(l, []byte("x = 1\n[t]\ny = \"z\"\n[[arr]]\nq = 'p'\n"))
	}
	f.Add("yaml", []byte("openapi: 3.0.0\npaths:\n  /a:\n    get: {}\n  /b:\n    post: {}\n"))
	f.Add("json", []byte(`{"a": {"b": 1}, "a": [], "": null}`))
	f.Add("json", []byte(`[1, 2, 3]`))
	f.Fuzz(func(t *testing.T, language string, src []byte) {
		srcType := lang.SrcConfig
		switch language {
		case lang.JSON, lang.TOML:
		case lang.YAML:
			if len(src) > 0 && src[0]&1 == 1 {
				srcType = lang.SrcAPIEndpoint
			}
		default:
			return
		}
		res := segment(t, language, srcType, src)
		if err := checkSegments(src, res, false); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzCode(f *testing.F) {
	addFixtureSeeds(f, ".go", ".py")
	f.Add([]byte("package p\nfunc f() {\n\tx := \nfunc g() {}\n"))
	f.Add([]byte("class A:\n  # c\n  def f(self): pass\n@d\ndef g(): ...\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, language := range []string{lang.Go, lang.Python} {
			res := segment(t, language, lang.SrcCode, src)
			if err := checkSegments(src, res, true); err != nil {
				t.Fatalf("%s: %v", language, err)
			}
		}
	})
}

// FuzzMembers runs member extraction in every language over mutations of
// the member fixtures: no panic, and every symbol keeps checkSymbols'
// invariants.
func FuzzMembers(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "members", "*"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for language := range specs {
			res := segment(t, language, lang.SrcCode, src)
			if err := checkSegments(src, res, true); err != nil {
				t.Fatalf("%s: %v", language, err)
			}
		}
	})
}

// A section longer than a unit whose cut falls in a run of blank lines
// gives no empty unit (found by FuzzMarkdown).
func TestBlankRunInLongSection(t *testing.T) {
	for n := 100; n < 12000; n += 97 {
		src := append([]byte("# A\n\nsome \xff text\n"), bytes.Repeat([]byte("\n"), n)...)
		src = append(src, "tail\n"...)
		for _, language := range []string{lang.Markdown, lang.Text} {
			if err := checkSegments(src, segment(t, language, lang.SrcDoc, src), false); err != nil {
				t.Fatalf("%s, %d blank lines: %v", language, n, err)
			}
		}
	}
}
