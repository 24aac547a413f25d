package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// relatedWorkspace is an indexed Go module: money is used by cart, cart by
// a command and a test.
func relatedWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for rel, text := range map[string]string{
		"go.mod":            "module example.com/shop\n",
		"money/money.go":    "package money\n\n// Sum adds two amounts.\nfunc Sum(a, b int) int { return a + b }\n",
		"cart/cart.go":      "package cart\n\nimport \"example.com/shop/money\"\n\n// Total sums prices.\nfunc Total(ps []int) int {\n\tt := 0\n\tfor _, p := range ps {\n\t\tt = money.Sum(t, p)\n\t}\n\treturn t\n}\n",
		"cart/cart_test.go": "package cart\n\nimport \"testing\"\n\nfunc TestTotal(t *testing.T) {\n\tif Total([]int{1, 2}) != 3 {\n\t\tt.Fatal(\"sum\")\n\t}\n}\n",
		"cmd/shop/main.go":  "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/shop/cart\"\n)\n\nfunc main() {\n\tfmt.Println(cart.Total(nil))\n}\n",
	} {
		abs := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(abs), 0o755)
		if err := os.WriteFile(abs, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	return root
}

func TestRelatedCLI(t *testing.T) {
	root := relatedWorkspace(t)
	out, stderr, code := runCLI(t, "related", "--root", root, "cart/cart.go")
	if code != exitOK {
		t.Fatalf("related: %d %s", code, stderr)
	}
	for _, want := range []string{
		"cart/cart.go  (go, whole file)",
		"Imports (1)\n  cart/cart.go:3  example.com/shop/money  -> money/ (1 file)\n",
		"Importers (1)\n  cmd/shop/main.go:6  imports example.com/shop/cart\n",
		"Tests (1)\n  cart/cart_test.go  (test)\n",
		"Callees (1)\n  money/money.go:3  Sum  (function)  <- line 9\n",
		"Callers (2)\n  cart/cart_test.go:6  TestTotal  (function)  calls Total\n      if Total([]int{1, 2}) != 3 {\n" +
			"  cmd/shop/main.go:10  main  (function)  calls Total\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// A symbol, as JSON; the absolute path works too.
	out, stderr, code = runCLI(t, "related", "--root", root, "--json", filepath.Join(root, "money", "money.go")+"::@Sum")
	if code != exitOK {
		t.Fatalf("related --json: %d %s", code, stderr)
	}
	var x struct {
		Target struct {
			Path      string `json:"path"`
			StartLine int    `json:"start_line"`
			WholeFile bool   `json:"whole_file"`
		} `json:"target"`
		Imports   []json.RawMessage `json:"imports"`
		Importers []struct{ Path string }
		Tests     []json.RawMessage `json:"tests"`
		Callees   []json.RawMessage `json:"callees"`
		Callers   []struct {
			Path    string `json:"path"`
			Line    int    `json:"line"`
			Symbol  string `json:"symbol"`
			ChunkID string `json:"chunk_id"`
		} `json:"callers"`
	}
	if err := json.Unmarshal([]byte(out), &x); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if x.Target.Path != "money/money.go" || x.Target.StartLine != 3 || x.Target.WholeFile ||
		x.Imports == nil || x.Tests == nil || x.Callees == nil || len(x.Importers) != 1 || x.Importers[0].Path != "cart/cart.go" ||
		len(x.Callers) != 1 || x.Callers[0].Path != "cart/cart.go" || x.Callers[0].Line != 9 || x.Callers[0].Symbol != "Total" || x.Callers[0].ChunkID == "" {
		t.Errorf("json: %+v\n%s", x, out)
	}

	// A range: lines 6-12 of cart.go are Total.
	out, _, code = runCLI(t, "related", "--root", root, "cart/cart.go::6,12")
	if code != exitOK || !strings.Contains(out, "cart/cart.go::6,12  (go, lines 6-12, 1 chunk)") || !strings.Contains(out, "calls Total") {
		t.Errorf("range: exit %d\n%s", code, out)
	}
}

func TestRelatedErrors(t *testing.T) {
	root := relatedWorkspace(t)
	os.WriteFile(filepath.Join(root, "cart", "new.go"), []byte("package cart\n"), 0o644)
	// A sibling of the workspace, reached with ../ from its root.
	os.MkdirAll(filepath.Join(filepath.Dir(root), "other"), 0o755)
	os.WriteFile(filepath.Join(filepath.Dir(root), "other", "README.md"), []byte("# other\n"), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"nope.go"}, exitError, []string{"no such file: nope.go", root}},
		{[]string{"cart/new.go"}, exitError, []string{"cart/new.go is not in the index", "dossier index"}},
		{[]string{"cart/cart.go::abc"}, exitUsage, []string{`bad selector "cart/cart.go::abc"`, "column 15", "\n  cart/cart.go::abc\n                ^\n"}},
		{[]string{"cart/cart.go::5,x"}, exitUsage, []string{"column 17"}},
		{[]string{"cart/cart.go::40"}, exitError, []string{"past the end", "line 40 of cart/cart.go, which has 12 lines"}},
		{[]string{"cart/cart.go::@Nope"}, exitError, []string{`no such symbol in the file: "Nope" in cart/cart.go`, "Total"}},
		{[]string{}, exitUsage, []string{"related takes one PATH[::RANGE], got 0 arguments"}},
		{[]string{"a.go", "b.go"}, exitUsage, []string{"got 2 arguments"}},
		{[]string{"--limit", "0", "cart/cart.go"}, exitUsage, []string{"--limit 0"}},
		{[]string{"/etc/passwd"}, exitUsage, []string{"outside the workspace root"}},
		{[]string{"../other/README.md"}, exitUsage, []string{filepath.Join(filepath.Dir(root), "other", "README.md") + " is outside the workspace root " + root}},
	} {
		args := append([]string{"related", "--root", root}, c.args...)
		out, stderr, code := runCLI(t, args...)
		if code != c.code || out != "" {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr %s", c.args, code, c.code, out, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, stderr)
			}
		}
	}
	_, stderr, code := runCLI(t, "related", "--root", t.TempDir(), "x.go")
	if code != exitError || !strings.Contains(stderr, "dossier index") {
		t.Errorf("no index: exit %d: %s", code, stderr)
	}
}

// A C call that only a unique global name resolves (no header included) is
// marked as a guess, in both directions; a call the scoping rules resolve
// is not.
func TestRelatedGuessMarked(t *testing.T) {
	root := t.TempDir()
	for rel, text := range map[string]string{
		"util.c": "int helper(int x) {\n\treturn x * 2;\n}\n",
		"main.c": "static int twice(int x) {\n\treturn x + x;\n}\n\nint main(void) {\n\treturn helper(1) + twice(2);\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "related", "--root", root, "main.c::@main")
	if code != exitOK {
		t.Fatalf("related: %d %s", code, stderr)
	}
	for _, want := range []string{
		"  util.c:1  helper  (function)  <- line 6  (guess: by name)\n",
		"  main.c:1  twice  (function)  <- line 6\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, stderr, code = runCLI(t, "related", "--root", root, "util.c::@helper")
	if code != exitOK {
		t.Fatalf("related: %d %s", code, stderr)
	}
	if want := "  main.c:6  main  (function)  calls helper  (guess: by name)\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	out, _, _ = runCLI(t, "related", "--help")
	if strings.Contains(out, "found by name, not by type") || !strings.Contains(out, "(guess: by name)") || !strings.Contains(out, "[build: CONSTRAINT]") {
		t.Errorf("help does not describe resolution and guesses:\n%s", out)
	}
}

// A Go callee defined once per platform is listed once per variant, each
// marked with its build constraint.
func TestRelatedBuildMarked(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.mod":        "module example.com/l\n",
		"l.go":          "package l\n\nfunc Use() bool { return on() }\n",
		"on_windows.go": "package l\n\nfunc on() bool { return false }\n",
		"on_unix.go":    "//go:build unix\n\npackage l\n\nfunc on() bool { return true }\n",
	})
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "related", "--root", root, "l.go::@Use")
	if code != exitOK {
		t.Fatalf("related: %d %s", code, stderr)
	}
	for _, want := range []string{
		"  on_unix.go:5  on  (function)  <- line 3  [build: unix]\n",
		"  on_windows.go:3  on  (function)  <- line 3  [build: windows]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
