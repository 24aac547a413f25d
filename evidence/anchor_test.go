package evidence

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble"
)

type sourceOf = assemble.Source

var itoa = strconv.Itoa

// take is what ExtractSpan records of lines a-b of text, as a part
// taken from it.
func take(text string, a, b int, sym string) (src sourceOf, old string) {
	starts := lineStarts(text)
	old = sliceLines(text, starts, a, b)
	s := sourceOf{Path: "m.go", Span: "lines=" + itoa(a) + ":" + itoa(b), StartLine: a, EndLine: b, CID: CID([]byte(old)),
		Anchor: anchorAt(text, starts, a, b), File: fileHash(text), Symbol: sym}
	return s, old
}

// TestRelocateNeverTakesOtherLines: the cases where a part was once given
// another block's lines (review of issue 32), and the ones it must follow.
func TestRelocateNeverTakesOtherLines(t *testing.T) {
	twin := func(name, body string) string {
		return "func " + name + "() error {\n\tv, err := load()\n\tif err != nil {\n\t\treturn " + body + "\n\t}\n\treturn use(v)\n}\n"
	}
	pad := strings.Repeat("// pad\n", 10)
	for _, c := range []struct {
		name       string
		before     string
		a, b       int
		after      string
		state      string
		start, end int
	}{
		{"an edit inside keeps both blocks of a two-function span",
			"package m\n\nfunc A() {\n\tx := 1\n\t_ = x\n}\n\nfunc B() {\n\ty()\n}\n", 3, 10,
			"package m\n\nfunc A() {\n\tx := 10\n\t_ = x\n}\n\nfunc B() {\n\ty()\n}\n", Changed, 3, 10},
		{"a changed twin body is found under its own function, not the other's",
			"package m\n\n" + twin("One", `fmt.Errorf("One")`) + "\n" + twin("Two", `fmt.Errorf("Two")`), 12, 15,
			"package m\n\n" + pad + twin("One", `fmt.Errorf("One")`) + "\n" + twin("Two", `fmt.Errorf("Zwei")`), Changed, 22, 25},
		{"an identical twin body moves with its own function",
			"package m\n\n" + twin("One", "err") + "\n" + twin("Two", "err"), 12, 15,
			"package m\n\n" + pad + twin("One", "err") + "\n" + strings.Replace(twin("Two", "err"), "use(v)", "use(v, 2)", 1), Moved, 22, 25},
		{"a twin body whose function is renamed is lost, not taken from the other",
			"package m\n\n" + twin("One", "err") + "\n" + twin("Two", "err"), 12, 15,
			"package m\n\n" + pad + twin("One", "err") + "\n" + twin("Three", "err"), Lost, 0, 0},
		{"appending after a last line without a line break changes nothing",
			"alpha\nbeta\ngamma", 2, 3, "alpha\nbeta\ngamma\ndelta\n", Unchanged, 2, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, old := take(c.before, c.a, c.b, "")
			r := relocate(s, old, c.after, nil)
			if r.state != c.state || c.state != Lost && (r.start != c.start || r.end != c.end) {
				t.Errorf("got %s %d-%d (%s), want %s %d-%d", r.state, r.start, r.end, r.why, c.state, c.start, c.end)
			}
		})
	}
}

// TestRelocateSymbolGrownAtItsEnd: a symbol whose old lines still read
// the same but which grew below them (Python has no closing line) is
// found again by its symbol.
func TestRelocateSymbolGrownAtItsEnd(t *testing.T) {
	before := "def f(x):\n    y = x + 1\n    return y\n"
	after := "def f(x):\n    y = x + 1\n    return y\n    print(y)\n"
	s, old := take(before, 1, 3, "f")
	r := relocate(s, old, after, func(string) (int, int, bool) { return 1, 4, true })
	if r.state != Changed || r.end != 4 {
		t.Errorf("got %s %d-%d", r.state, r.start, r.end)
	}
}

// TestRelocateEditedPartWithAPlainHead: a part edited by hand has no old
// text; its anchor alone must refuse a blank first line.
func TestRelocateEditedPartWithAPlainHead(t *testing.T) {
	before := "package m\n\n\nfunc A() {\n}\n"
	s, _ := take(before, 3, 5, "")
	r := relocate(s, "", "package m\n// x\n\n\nfunc A() {\n\tb()\n}\n", nil)
	if r.state != Lost {
		t.Errorf("got %s %d-%d (%s)", r.state, r.start, r.end, r.why)
	}
}
