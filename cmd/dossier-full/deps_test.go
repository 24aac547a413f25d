package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDepsResolved: evidence deps links parts through resolved references,
// so a comment, a string, a definition or a package clause that merely
// spells a name links nothing, while a real call in another part does.
func TestDepsResolved(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	root := t.TempDir()
	files := map[string]string{
		"tool/main.go": `package main

import "fmt"

// main prints what Render draws.
func main() {
	fmt.Println(Render("x"))
}
`,
		"tool/render.go": `package main

// Render draws; helper does the work.
func Render(s string) string {
	return helper(s)
}

func helper(s string) string { return s + "!" }

type T struct{}

// String is named like Render's caller would be, and says "Render".
func (T) String() string { return "Render" }
`,
		"tool/other.go": `package main

func other() { _ = T{}.String() }
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
	r := "--root=" + root
	must(t, "index", r)
	must(t, "flow", "new", "deps", r, "--request", "Explain Render.")
	must(t, "evidence", "add", "tool/render.go::@Render", r)
	must(t, "evidence", "add", "tool/main.go", r)
	must(t, "evidence", "add", "tool/render.go::@helper", r)
	must(t, "evidence", "add", "tool/render.go::@T.String", r)
	must(t, "evidence", "add", "tool/other.go", r)

	out := must(t, "evidence", "deps", "100", r)
	for _, want := range []string{
		"Referenced by 110_main_go.evidence.md:", "tool/main.go:7  (Render)",
		"Calls helper in 120_",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("deps of Render lacks %q:\n%s", want, out)
		}
	}
	// String's comment and string literal spell Render; they call nothing.
	if strings.Contains(out, "130_") || strings.Contains(out, "not resolved") {
		t.Errorf("deps of Render links a comment or a string, or was not resolved:\n%s", out)
	}

	// main.go defines main; other.go's package clause is no reference to it,
	// and main's own definition line is no call.
	out = must(t, "evidence", "deps", "110", r)
	if strings.Contains(out, "140_") || strings.Contains(out, "(main)") {
		t.Errorf("deps of main.go links a package clause or a definition:\n%s", out)
	}
	if !strings.Contains(out, "Calls Render in 100_") {
		t.Errorf("deps of main.go lacks its call of Render:\n%s", out)
	}
	// other.go calls T.String through a literal of T.
	out = must(t, "evidence", "deps", "130", r)
	if !strings.Contains(out, "Referenced by 140_other_go.evidence.md:") {
		t.Errorf("deps of T.String lacks other.go's call:\n%s", out)
	}
}
