package evidence

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refWorkspace is a workspace with Go, TypeScript and PHP files, indexed,
// with a flow that holds one of them.
func refWorkspace(t *testing.T) (*Engine, string) {
	t.Helper()
	e, root := newTestEngine(t)
	write := func(rel, text string) { writeFile(t, root, rel, text) }
	var goSrc strings.Builder
	goSrc.WriteString("package parser\n\nimport \"strings\"\n\n")
	for i := 0; i < 8; i++ {
		goSrc.WriteString("// filler\n")
	}
	goSrc.WriteString("// ParseLine splits a line into fields.\nfunc ParseLine(line string) []string {\n\tfields := strings.Fields(line)\n\treturn fields\n}\n")
	write("go.mod", "module example.com/ws\n\ngo 1.22\n")
	write("parser/parse.go", goSrc.String()) // ParseLine: lines 13-17 (its chunk: 5-17)
	write("web/src/api/client.ts", "export class ApiClient {\n  fetchUser(id: string): Promise<string> {\n    return Promise.resolve(id);\n  }\n}\n")
	write("app/Http/Controllers/UserController.php", "<?php\nnamespace App\\Http\\Controllers;\n\nclass UserController\n{\n    public function show(int $id): string\n    {\n        return (string) $id;\n    }\n}\n")
	write("README.md", "# ws\n")
	write(".pgpass", "db:5432:app:admin:hunter2\n")
	reindex(t, root)
	run(t, e, "flow", "new", "refs")
	run(t, e, "evidence", "add", "README.md")
	run(t, e, "evidence", "add", "web/src/api/client.ts::@ApiClient.fetchUser")
	return e, root
}

func selectors(refs []AnswerRef) []string {
	var out []string
	for _, r := range refs {
		s := r.Selector
		if r.InFlow != "" {
			s += " (in " + r.InFlow + ")"
		}
		out = append(out, s)
	}
	return out
}

func TestAnswerRefs(t *testing.T) {
	e, root := refWorkspace(t)
	outside := filepath.Join(filepath.Dir(root), "outside.go")
	os.WriteFile(outside, []byte("package x\n"), 0o644)
	answer := fmt.Sprintf(`The bug is in parser/parse.go:15: `+"`ParseLine`"+` drops empty fields.

1. In `+"`web/src/api/client.ts`"+`, `+"`ApiClient.fetchUser()`"+` should reject an empty id.
2. See app/Http/Controllers/UserController.php:6-8 and `+"`UserController::show`"+`.
3. Compare with ../secrets/parse.go, %s and /etc/passwd.
4. parser/parse.go:400 does not exist, nor does parser/missing.go.
5. The README.md says nothing; ./parser/parse.go:15 again; .pgpass holds the password.

`+"```go"+`
func ParseLine(line string) []string {
	return strings.Split(line, " ")
}
`+"```"+`
`, outside)
	refs, err := e.AnswerRefs(answer)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(selectors(refs), "\n")
	want := strings.Join([]string{
		"parser/parse.go::5,17", // the enclosing function (its comments too), from the index
		"parser/parse.go::@ParseLine",
		"web/src/api/client.ts",
		"web/src/api/client.ts::@ApiClient.fetchUser (in 110_client_ts_apiclient_fetchuser)",
		"app/Http/Controllers/UserController.php::6,9",
		"app/Http/Controllers/UserController.php::@UserController.show",
		"README.md (in 100_readme_md)",
	}, "\n")
	if got != want {
		t.Errorf("refs:\n%s\nwant:\n%s", got, want)
	}
	for _, r := range refs {
		if r.Mention == "" || r.Path == "" {
			t.Errorf("%+v: no mention or path", r)
		}
	}
}

// TestAnswerRefsWithoutIndex: without an index, paths still count and a
// mentioned line gets a few lines of context, clamped to the file.
func TestAnswerRefsWithoutIndex(t *testing.T) {
	e, root := newTestEngine(t)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.WriteFile(filepath.Join(root, "src", "main.go"), []byte("package main\n\nfunc main() {\n}\n"), 0o644)
	refs, err := e.AnswerRefs("Look at src/main.go:2 and src/main.go:3:5, then src/main.go:9.")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(selectors(refs), "\n")
	if want := "src/main.go::1,4"; got != want {
		t.Errorf("refs:\n%s\nwant:\n%s", got, want)
	}
	refs, _ = e.AnswerRefs("main.go is not at the root; src/main.go#L3-L4 is.")
	if got := strings.Join(selectors(refs), "\n"); got != "src/main.go::1,4" {
		t.Errorf("refs: %s", got)
	}
}

// FuzzAnswerRefs: any answer gives refs (or none) without a panic, each a
// selector that parses, on a file inside the workspace.
func FuzzAnswerRefs(f *testing.F) {
	for _, s := range []string{"see a.go:1-2", "`Parse` in ./a.go#L1", "../a.go /etc/passwd a.go:99", "```go\nfunc Parse() {}\n```", "a.go:0 a.go:1:2 a.go, line 1"} {
		f.Add(s)
	}
	root := f.TempDir()
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	e := NewEngine(root)
	e.Getenv = func(string) string { return "" }
	f.Fuzz(func(t *testing.T, answer string) {
		refs, err := e.AnswerRefs(answer)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			if r.Path != "a.go" {
				t.Errorf("%q: a ref to %q", answer, r.Path)
			}
			if _, err := ParseSelector(r.Selector); err != nil {
				t.Errorf("%q: selector %q: %v", answer, r.Selector, err)
			}
			if r.Start > r.End || r.End > 3 {
				t.Errorf("%q: lines %d-%d of a 3-line file", answer, r.Start, r.End)
			}
		}
	})
}
