package termsafe

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text, ünïcode, 世界, emoji 👍🏽\n\tindented", "plain text, ünïcode, 世界, emoji 👍🏽\n\tindented"},
		{"\x1b]52;c;aGVsbG8=\x07", `\x1b]52;c;aGVsbG8=\a`},
		{"a\x1b[2Jb", `a\x1b[2Jb`},
		{"\x1b]0;pwned\x1b\\", `\x1b]0;pwned\x1b\`},
		{"csi \u009b31m c1", `csi \u009b31m c1`},
		{"over\rwrite", `over\rwrite`},
		{"crlf\r\nline\r\n", "crlf\nline\n"},
		{"\r\r\n", "\\r\n"},
		{"back\b\bspace\x7f", `back\b\bspace\x7f`},
		{"nul\x00 vt\v ff\f", `nul\x00 vt\v ff\f`},
		{"bad \xff\xfe utf8 \xe2\x82", `bad \xff\xfe utf8 \xe2\x82`},
		{"bidi \u202eevil\u202c \u2066x\u2069", `bidi \u202eevil\u202c \u2066x\u2069`},
		{`already \x1b escaped`, `already \x1b escaped`},
		{"", ""},
	}
	for _, c := range cases {
		if got := String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	if got, want := Line("a\tb\nc\r\nd\x1b"), `a\tb\nc\r\nd\x1b`; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	if got := Line("name.go"); got != "name.go" {
		t.Errorf("Line changed plain text: %q", got)
	}
}

// checkSafe fails when out holds anything a terminal would act on.
func checkSafe(t *testing.T, in, out string, line bool) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("output of %q is not valid UTF-8: %q", in, out)
	}
	for i, r := range out {
		bad := r < 0x20 && (line || (r != '\n' && r != '\t'))
		bad = bad || r == 0x7f || control(r)
		if bad {
			t.Fatalf("output of %q holds %U at %d: %q", in, r, i, out)
		}
	}
	if !line && strings.Contains(out, "\r") {
		t.Fatalf("output of %q holds a CR: %q", in, out)
	}
}

func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]52;c;aGk=\x07", "\x1b[2J\x1b[H", "\u009b2J", "a\r\nb\rc", "\xff\xe2\x82", "\u202e", "tab\tnl\n", `\x1b`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := String(in)
		checkSafe(t, in, out, false)
		if String(out) != out {
			t.Fatalf("String is not idempotent on %q: %q then %q", in, out, String(out))
		}
		if Safe(in) != (out == in) {
			t.Fatalf("Safe(%q) = %v but String changed it: %v", in, Safe(in), out != in)
		}
		ln := Line(in)
		checkSafe(t, in, ln, true)
		if Line(ln) != ln {
			t.Fatalf("Line is not idempotent on %q", in)
		}
		// Printable text is kept: dropping everything escaped from the
		// input leaves a subsequence of the output.
		var keep strings.Builder
		for i, r := range in {
			if r == utf8.RuneError && !strings.HasPrefix(in[i:], "\uFFFD") {
				continue
			}
			if r >= 0x20 && r != 0x7f && !control(r) {
				keep.WriteRune(r)
			}
		}
		if !isSubsequence(keep.String(), out) {
			t.Fatalf("String(%q) = %q lost printable text %q", in, out, keep.String())
		}
		// A Writer fed the input in two pieces writes what String does.
		cut := len(in) / 2
		var b bytes.Buffer
		w := NewWriter(&b)
		w.Write([]byte(in[:cut]))
		w.Write([]byte(in[cut:]))
		w.Flush()
		if b.String() != out {
			t.Fatalf("Writer split at %d wrote %q, String gives %q", cut, b.String(), out)
		}
	})
}

func isSubsequence(sub, s string) bool {
	for _, r := range sub {
		i := strings.IndexRune(s, r)
		if i < 0 {
			return false
		}
		s = s[i+utf8.RuneLen(r):]
	}
	return true
}

func TestWriterSplits(t *testing.T) {
	in := "ok ✓ \x1b]52;c;aGk=\x07 line\r\nnext 世界\rover\r"
	for cut := 0; cut <= len(in); cut++ {
		var b bytes.Buffer
		w := NewWriter(&b)
		for _, p := range []string{in[:cut], in[cut:]} {
			if n, err := w.Write([]byte(p)); n != len(p) || err != nil {
				t.Fatalf("Write(%q) = %d, %v", p, n, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if got, want := b.String(), String(in); got != want {
			t.Errorf("split at %d: wrote %q, want %q", cut, got, want)
		}
	}
}

func TestWrapAndRaw(t *testing.T) {
	var b bytes.Buffer
	if w := Wrap(&b, func(w io.Writer) bool { return false }); w != any(&b) {
		t.Errorf("a non-terminal was wrapped: %T", w)
	}
	if w := Wrap(&b, nil); w != any(&b) {
		t.Errorf("a buffer counts as a terminal: %T", w)
	}
	w := Wrap(&b, func(io.Writer) bool { return true })
	if _, ok := w.(*Writer); !ok {
		t.Fatalf("a terminal was not wrapped: %T", w)
	}
	w.Write([]byte("a\x1b[2Jb\xe2"))
	raw := Raw(w)
	if raw != any(&b) {
		t.Fatalf("Raw = %T, want the buffer", raw)
	}
	raw.Write([]byte("\r\x1b[K"))
	if got, want := b.String(), `a\x1b[2Jb\xe2`+"\r\x1b[K"; got != want {
		t.Errorf("wrote %q, want %q (held bytes flushed before raw output)", got, want)
	}
}
