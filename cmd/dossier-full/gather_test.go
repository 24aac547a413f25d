package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// lexerWorkspace is a package where a method and a function share a
// name, and a test file that names them in comments as well as in calls.
func lexerWorkspace(t *testing.T) string {
	t.Helper()
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	files := map[string]string{
		"lexer/lex.go": `package lexer

// Lexer splits its input.
type Lexer struct{ src string }

// Scan reads the lexer's next token.
func (l *Lexer) Scan() string {
	return isDelimiter(l.src)
}

// Scan reads one token from s.
func Scan(s string) string {
	return s
}

func isDelimiter(s string) string {
	return s
}
`,
		"lexer/lex_test.go": `package lexer

import (
	"strings"
	"testing"
)

// scanInputs feed Scan in the tests below.
var scanInputs = []string{"a", "b"}

func TestScanFunc(t *testing.T) {
	if Scan("x") != "x" {
		t.Fatal(strings.ToUpper("x"))
	}
}

func TestLexerScan(t *testing.T) {
	l := &Lexer{src: "a"}
	if l.Scan() != "a" {
		t.Fatal("scan")
	}
}

// BenchmarkOther has nothing to do with Scan.
func BenchmarkOther(b *testing.B) {
	for range b.N {
	}
}
`,
	}
	writeTree(t, root, files)
	must(t, "index", "--root", root)
	must(t, "flow", "new", "lexer", "--root", root, "--request", "Fix the lexer.")
	return root
}

// TestGatherTakesResolvedNeighbours: gather's tests are the test functions
// that call the target, never a declaration or benchmark that names it in
// a comment, nor the tests of another function of the same name; callees
// are named after their symbol.
func TestGatherTakesResolvedNeighbours(t *testing.T) {
	root := lexerWorkspace(t)
	r := "--root=" + root
	out := must(t, "evidence", "gather", "fix", "lexer/lex.go::@Scan", r)
	for _, want := range []string{"lex_test_go_testscanfunc"} {
		if !strings.Contains(out, want) {
			t.Errorf("gather fix lacks %s:\n%s", want, out)
		}
	}
	for _, bad := range []string{"TestLexerScan", "BenchmarkOther", "lex_test_go_3_", "lex_test_go_9_"} {
		if strings.Contains(out, bad) {
			t.Errorf("gather fix added %s:\n%s", bad, out)
		}
	}

	must(t, "flow", "new", "method", r, "--request", "Refactor the method.")
	out = must(t, "evidence", "gather", "refactor", "lexer/lex.go::@Lexer.Scan", r)
	if !strings.Contains(out, "lex_test_go_testlexerscan") || strings.Contains(out, "TestScanFunc") {
		t.Errorf("gather refactor of a method took the wrong tests:\n%s", out)
	}

	must(t, "flow", "new", "callees", r, "--request", "Explain the method.")
	out = must(t, "evidence", "gather", "explain", "lexer/lex.go::@Lexer.Scan", r)
	if !strings.Contains(out, "lex_go_isdelimiter") {
		t.Errorf("a callee part is not named after its symbol:\n%s", out)
	}
}

// TestFromOutputEachFailingGoTest: a real go test run where two tests fail
// at one helper's line is two failures, and adds both tests and the
// helper.
func TestFromOutputEachFailingGoTest(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":      "module example.com/h\n\ngo 1.22\n",
		"h/h.go":      "package h\n\n// Add adds.\nfunc Add(a, b int) int { return a - b }\n",
		"h/h_test.go": helperTests,
	})
	must(t, "index", "--root", root)
	r := "--root=" + root
	must(t, "flow", "new", "helper", r, "--request", "Fix Add.")
	for _, fixture := range []string{"go_test_helper.txt", "go_json_helper.txt"} {
		log := filepath.Join("..", "..", "evidence", "trace", "testdata", fixture)
		out := must(t, "evidence", "from-output", log, r)
		for _, want := range []string{"2 failure(s)", "h_test_go_testaddone", "h_test_go_testaddtwo", "h_test_go_expect"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: from-output lacks %q:\n%s", fixture, want, out)
			}
		}
		must(t, "flow", "new", "again "+fixture, r, "--request", "Fix Add.")
	}
}

// helperTests is h/h_test.go of the run captured in evidence/trace's
// go_test_helper.txt and go_json_helper.txt.
const helperTests = `package h

import "testing"

func check(t *testing.T, got, want int) {
	t.Helper()
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}

func expect(t *testing.T, got, want int) {
	if got != want {
		t.Errorf("got %d, want %d", got, want)
	}
}

func TestAddOne(t *testing.T) { expect(t, Add(1, 1), 2) }

func TestAddTwo(t *testing.T) { expect(t, Add(2, 2), 4) }
`

// TestFromOutputPytestSummaryAddsNoFailure: a real pytest run with two
// failures is two failures, its short test summary adding none.
func TestFromOutputPytestSummaryAddsNoFailure(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"app/calc.py":        "def add(a, b):\n    return a - b\n\n\ndef check(got, want):\n    assert got == want, f\"got {got}, want {want}\"\n",
		"tests/test_calc.py": "from app.calc import add, check\n\n\ndef test_add_one():\n    check(add(1, 1), 2)\n\n\ndef test_add_two():\n    assert add(2, 2) == 4\n",
	})
	must(t, "index", "--root", root)
	r := "--root=" + root
	must(t, "flow", "new", "pytest", r, "--request", "Fix add.")
	out := must(t, "evidence", "from-output", filepath.Join("..", "..", "evidence", "trace", "testdata", "pytest_real.txt"), r)
	for _, want := range []string{"2 failure(s)", "test_calc_py_test_add_one", "test_calc_py_test_add_two", "calc_py_check"} {
		if !strings.Contains(out, want) {
			t.Errorf("from-output lacks %q:\n%s", want, out)
		}
	}
}
