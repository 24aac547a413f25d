package tokens

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// additive reports whether counts of a and b add up to the count of a+b in
// both exact encodings, naming the first that does not.
func additive(a, b string) (string, bool) {
	for _, c := range exactCounters() {
		if c.Count(a+b) != c.Count(a)+c.Count(b) {
			return c.name, false
		}
	}
	return "", true
}

// starts are first runes for b, including every kind Joinable tells apart.
var starts = []string{
	"", "", "", "x", "X", "'s", "'LL", "don't", "1", "123", "}", ")", "/", "//",
	"/*", "#", "\"", ".", "-", " ", "  ", "\t", "\t\t", " \t", "\n", "\r\n",
	"\r", " \n", "\t\r\n", "\u00a0", "\u0085", "\u2028", "\u3000", "é", "É",
	"\u0301", "ǅ", "中", "🚀", "٣", "\ufffd", "\xff", "\x80", "<|endoftext|>",
}

func TestJoinableOnCorpusSplits(t *testing.T) {
	files := corpus(t)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	r := rand.New(rand.NewPCG(3, 4))
	joinable, rejected := 0, 0
	for range 6000 {
		text := files[names[r.IntN(len(names))]]
		var breaks []int
		for i := 0; i < len(text); i++ {
			if text[i] == '\n' || text[i] == '\r' {
				breaks = append(breaks, i+1)
			}
		}
		if len(breaks) == 0 {
			continue
		}
		k := breaks[r.IntN(len(breaks))]
		a := text[max(0, k-1-r.IntN(300)):k]
		b := text[k:min(len(text), k+r.IntN(300))]
		b = starts[r.IntN(len(starts))] + b
		if !Joinable(a, b) {
			rejected++
			continue
		}
		joinable++
		if enc, ok := additive(a, b); !ok {
			t.Errorf("Joinable(%q, %q) but %s counts do not add up", a, b, enc)
		}
	}
	if joinable < 3000 || rejected < 300 {
		t.Errorf("only %d joinable and %d rejected splits checked", joinable, rejected)
	}
}

// TestJoinableExclusionsAreNeeded shows each condition of Joinable guards a
// real failure: every pair here is rejected and does not add up.
func TestJoinableExclusionsAreNeeded(t *testing.T) {
	for _, p := range []struct{ a, b, why string }{
		{"}\n", "/ x", `o200k's [\r\n/]* tail takes the "/"`},
		{"x\n", "\ny", `\s*[\r\n]+ runs on to b's line break`},
		{"x\r", "\ny", "CRLF split in two"},
		{"x\n", "  \ny", "line break inside b's leading white space"},
		{"}\n", "\n", "punctuation's [\\r\\n]* tail"},
		{"ab", "cd", "a does not end a line"},
		{"x ", "y", `\s+(?!\S) sees b; " y" is one piece`},
		{"don", "'t", "contraction"},
		{"1234", "5", "digits group by three"},
	} {
		if Joinable(p.a, p.b) {
			t.Errorf("Joinable(%q, %q) = true; %s", p.a, p.b, p.why)
		}
		if _, ok := additive(p.a, p.b); ok {
			t.Errorf("%q + %q adds up after all; the case no longer shows %s", p.a, p.b, p.why)
		}
	}
}

func TestJoinableTrivialCases(t *testing.T) {
	for _, p := range [][2]string{{"", "x"}, {"x", ""}, {"", ""}, {"a\n", "b"}, {"a\r\n", "\tb"}, {"}\n", " /b"}} {
		if !Joinable(p[0], p[1]) {
			t.Errorf("Joinable(%q, %q) = false", p[0], p[1])
		}
	}
}

// FuzzJoinable checks Joinable(a, b) => Count(a+b) == Count(a)+Count(b).
// Random strings rarely end a line, so each input is also tried with a
// line break appended to a.
func FuzzJoinable(f *testing.F) {
	for _, s := range [][2]string{
		{"}\n", "x"}, {"x\n", "  y"}, {"a\r", "b"}, {"}\n", "/"}, {"\n", "\n"},
		{"x\n\t\n", " \u0085y"}, {"don't\n", "'s"}, {"12\n", "345"}, {"\xe2\n", "\x82"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, a := range []string{a, a + "\n", a + "\r\n", a + "\r"} {
			if !Joinable(a, b) {
				continue
			}
			if enc, ok := additive(a, b); !ok {
				t.Fatalf("Joinable(%q, %q) but %s counts do not add up", a, b, enc)
			}
		}
	})
}
