package main

import (
	"os"
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
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
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
