package trace

import (
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestParseNoise feeds lines that look like locations but are not; none
// may yield a ref.
func TestParseNoise(t *testing.T) {
	for _, line := range []string{
		"listening on http://localhost:3000",
		"GET https://cdn.example.com/lib/app.js:10 200",
		"see http://example.com/docs/page.html:3",
		"12:34:56 started",
		"2024-05-01T10:00:00.123Z done",
		"dial tcp 10.0.0.1:443: connection refused",
		"connecting to db.internal:5432",
		"proxy example.com:443 ok",
		"version v1.2.3:4",
		"ratio 3:2",
		"file.txt:12abc",
		"data.csv:1.5 percent",
		"key:value.go:12",
		"    at processTicksAndRejections (node:internal/process/task_queues:95:5)",
		"    at new Promise (<anonymous>)",
		`  File "<stdin>", line 1, in <module>`,
		"main.c:(.text+0x1a): undefined reference to `foo'",
		"a.go:99999999999: too long a line number",
	} {
		if refs := Parse(line + "\n"); len(refs) != 0 {
			t.Errorf("%q: got %+v", line, refs)
		}
	}
}

// TestParseGeneric checks the fallback's shapes: several refs on one
// line, a Windows path, a column, and the message rule.
func TestParseGeneric(t *testing.T) {
	got := Parse("compare a/x.txt:3 with (b/y.txt:4:2), C:\\w\\z.ini:5\n" +
		"  conf/app.toml:9:1: duplicate key\n")
	line := "compare a/x.txt:3 with (b/y.txt:4:2), C:\\w\\z.ini:5"
	checkRefs(t, got, []Ref{
		{Path: "a/x.txt", Line: 3, Format: FormatGeneric, Message: line},
		{Path: "b/y.txt", Line: 4, Col: 2, Format: FormatGeneric, Message: line},
		{Path: `C:\w\z.ini`, Line: 5, Format: FormatGeneric, Message: line},
		{Path: "conf/app.toml", Line: 9, Col: 1, Format: FormatGeneric, Message: "duplicate key"},
	})
}

// TestParseANSI checks colours and an OSC 8 hyperlink around a path.
func TestParseANSI(t *testing.T) {
	out := "\x1b]8;;file:///src/a.c\x07\x1b[1msrc/a.c\x1b[0m\x1b]8;;\x07:3:1: \x1b[31merror:\x1b[0m bad\n"
	checkRefs(t, Parse(out), []Ref{
		{Path: "src/a.c", Line: 3, Col: 1, Format: FormatGCC, Message: "error: bad"},
	})
}

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"plain":                      "plain",
		"\x1b[31mred\x1b[0m":         "red",
		"\x1b[1;38;5;196mx\x1b[m":    "x",
		"\x1b]0;title\x07after":      "after",
		"\x1b]8;;u\x1b\\link":        "link",
		"\x1b(Bascii":                "ascii",
		"half \x1b[12":               "half ",
		"lone \x1b":                  "lone ",
		"\x1b]unterminated osc":      "",
		"keep\x1b[2Kline\x1b=x\x1b>": "keeplinex",
	} {
		if got := stripANSI(in); got != want {
			t.Errorf("stripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestParseCarriageReturn checks that a progress bar overwritten by a
// location leaves only the location.
func TestParseCarriageReturn(t *testing.T) {
	checkRefs(t, Parse("building 10%\rbuilding 90%\rsrc/a.c:2:1: error: x\r\n"), []Ref{
		{Path: "src/a.c", Line: 2, Col: 1, Format: FormatGCC, Message: "error: x"},
	})
}

// TestParseGoTestNoPackage checks go test output cut before its package
// line: refs keep an empty Pkg and are still de-duplicated.
func TestParseGoTestNoPackage(t *testing.T) {
	out := "--- FAIL: TestA (0.00s)\n    a_test.go:5: one\n    a_test.go:5: again\n"
	checkRefs(t, Parse(out), []Ref{
		{Path: "a_test.go", Line: 5, Func: "TestA", Format: FormatGoTest, Message: "one"},
	})
}

// TestParseMessageClip checks the 200-byte cap on a multi-byte message.
func TestParseMessageClip(t *testing.T) {
	long := strings.Repeat("é", 150) // 300 bytes
	refs := Parse("a.c:1:1: error: " + long + "\n")
	if len(refs) != 1 {
		t.Fatalf("got %d refs", len(refs))
	}
	m := refs[0].Message
	if len(m) > maxMessage || !utf8.ValidString(m) || !strings.HasPrefix(m, "error: é") {
		t.Errorf("message %d bytes, valid %v: %q", len(m), utf8.ValidString(m), m)
	}
}

// repeatReader yields line forever.
type repeatReader struct {
	line string
	off  int
}

func (r *repeatReader) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		c := copy(b[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}

// TestParseReaderTruncated checks the MaxInput cap: refs past it are not
// read and the cut is reported.
func TestParseReaderTruncated(t *testing.T) {
	head := "a.c:1:1: error: head\n"
	noise := io.LimitReader(&repeatReader{line: "noise without refs\n"}, MaxInput)
	tail := "b.c:2:2: error: tail\n"
	refs, truncated, err := ParseReader(io.MultiReader(strings.NewReader(head), noise, strings.NewReader(tail)))
	if err != nil || !truncated {
		t.Fatalf("truncated %v, err %v", truncated, err)
	}
	if len(refs) != 1 || refs[0].Path != "a.c" {
		t.Errorf("got %+v, want only a.c", refs)
	}

	refs, truncated, err = ParseReader(strings.NewReader(head + tail))
	if err != nil || truncated || len(refs) != 2 {
		t.Errorf("short input: %d refs, truncated %v, err %v", len(refs), truncated, err)
	}
}

// TestParseLongLine checks that a line past maxLine loses its tail but
// not the lines after it.
func TestParseLongLine(t *testing.T) {
	out := strings.Repeat("x", 2*maxLine) + " lost.c:1:1: error: x\nkept.c:2:2: error: y\n"
	refs := Parse(out)
	if len(refs) != 1 || refs[0].Path != "kept.c" {
		t.Errorf("got %+v, want only kept.c", refs)
	}
}

// errReader fails after its data.
type errReader struct{ data string }

func (r *errReader) Read(b []byte) (int, error) {
	if r.data == "" {
		return 0, errors.New("pipe closed")
	}
	n := copy(b, r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestParseReaderError checks that a read error is returned with the refs
// found before it.
func TestParseReaderError(t *testing.T) {
	refs, _, err := ParseReader(&errReader{data: "a.c:1:1: error: x\n"})
	if err == nil || len(refs) != 1 {
		t.Errorf("refs %+v, err %v", refs, err)
	}
}

// TestParseESLintHeaderScope checks that a file-name line followed by
// something other than ESLint rows does not claim later indented lines.
func TestParseESLintHeaderScope(t *testing.T) {
	out := "README.md\nsome text\n  10:5  error  not a row of README.md\n"
	if refs := Parse(out); len(refs) != 0 {
		t.Errorf("got %+v", refs)
	}
}

// TestParseFormatsMixed checks that formats following each other in one
// log keep their own messages and frames.
func TestParseFormatsMixed(t *testing.T) {
	out := "Traceback (most recent call last):\n" +
		"  File \"/app/a.py\", line 3, in f\n" +
		"KeyError: 'k'\n" +
		"Error: boom\n" +
		"    at g (/app/b.js:4:2)\n" +
		"src/c.rs:1:1: error[E0425]: cannot find value `z`\n"
	checkRefs(t, Parse(out), []Ref{
		{Path: "/app/a.py", Line: 3, Func: "f", Format: FormatPython, Message: "KeyError: 'k'"},
		{Path: "/app/b.js", Line: 4, Col: 2, Func: "g", Format: FormatNode, Message: "Error: boom"},
		{Path: "src/c.rs", Line: 1, Col: 1, Format: FormatRustc, Message: "error[E0425]: cannot find value `z`"},
	})
}

func TestSplitLoc(t *testing.T) {
	for loc, want := range map[string]struct {
		path      string
		line, col int
		ok        bool
	}{
		"/a/b.js:10:15":     {"/a/b.js", 10, 15, true},
		"/a/b.js:10":        {"/a/b.js", 10, 0, true},
		`C:\app\b.js:10:15`: {`C:\app\b.js`, 10, 15, true},
		`C:\app\b.js:10`:    {`C:\app\b.js`, 10, 0, true},
		"/a/b.js":           {"", 0, 0, false},
		"/a/b.js:":          {"", 0, 0, false},
		"/a/b.js:1x":        {"", 0, 0, false},
	} {
		path, line, col, ok := splitLoc(loc)
		if path != want.path || line != want.line || col != want.col || ok != want.ok {
			t.Errorf("splitLoc(%q) = %q %d %d %v, want %+v", loc, path, line, col, ok, want)
		}
	}
}
