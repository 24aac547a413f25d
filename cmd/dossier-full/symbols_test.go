package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// symbolsWorkspace holds a Go file whose constants sit in a block of
// top-level code and a TypeScript class whose members are property
// functions, indexed by a dossier process.
func symbolsWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for rel, src := range map[string]string{
		"net/status.go": "../../index/segment/testdata/members/status.go",
		"web/server.ts": "../../index/segment/testdata/members/server.ts",
	} {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A function of the same name as a field elsewhere.
	if err := os.WriteFile(filepath.Join(root, "net", "timeout.go"), []byte("package http\n\n// Timeout is the default.\nfunc Timeout() int { return 30 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := dossier("index", "--root", root).CombinedOutput(); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	return root
}

func TestSearchSymbolFindsConstant(t *testing.T) {
	root := symbolsWorkspace(t)
	out, err := dossier("search", "--root", root, "--json", "--mode", "symbol", "StatusNotFound").CombinedOutput()
	if err != nil {
		t.Fatalf("search: %v\n%s", err, out)
	}
	var res struct {
		Results []struct {
			Path      string   `json:"path"`
			StartLine int      `json:"start_line"`
			EndLine   int      `json:"end_line"`
			Score     float64  `json:"score"`
			Sources   []string `json:"sources"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	// The constant is declared on line 9 (its doc on line 8).
	if len(res.Results) == 0 || res.Results[0].Path != "net/status.go" || res.Results[0].StartLine > 8 || res.Results[0].EndLine < 9 ||
		!strings.Contains(strings.Join(res.Results[0].Sources, ","), "symbol") {
		t.Errorf("search --mode symbol StatusNotFound:\n%s", out)
	}
}

func TestSelectorPicksMember(t *testing.T) {
	root := symbolsWorkspace(t)
	r := "--root=" + root
	must(t, "flow", "new", "members", "--request", "Look at the server.", r)
	out := must(t, "evidence", "add", "web/server.ts::@Server.fetch", r)
	if !strings.Contains(out, "web/server.ts:10-13 @Server.fetch") {
		t.Errorf("add feedback:\n%s", out)
	}
	part, err := os.ReadFile(filepath.Join(flowDir(t, root), "ctx", "evidence", "100_server_ts_server_fetch.evidence.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Exactly the property function with its doc: not the class header,
	// not the members around it.
	want := "```typescript\n  /** fetch handles one request. */\n  fetch = async (req: Request): Promise<Response> => {\n    return this.#route(req);\n  };\n```\n"
	if !strings.Contains(string(part), want) || !strings.Contains(string(part), "span=lines=10:13") {
		t.Errorf("part:\n%s", part)
	}
	// An object literal's method, a private method and a Go constant by bare name.
	for sel, lines := range map[string]string{
		"web/server.ts::@api.nested.remove": "web/server.ts:33-35",
		"web/server.ts::@Server.route":      "web/server.ts:18-20",
		"@StatusCreated":                    "net/status.go:15-15",
		"net/status.go::@Client.Timeout":    "net/status.go:29-30",
		"@Timeout":                          "net/timeout.go:3-4", // the function, not the field
	} {
		if out := must(t, "evidence", "add", sel, r); !strings.Contains(out, lines) {
			t.Errorf("add %s: want %s\n%s", sel, lines, out)
		}
	}
	// related selects the same lines.
	out = must(t, "related", "--json", r, filepath.Join(root, "web", "server.ts")+"::@Server.text")
	var rel struct {
		Target struct {
			StartLine int `json:"start_line"`
			EndLine   int `json:"end_line"`
		} `json:"target"`
	}
	if err := json.Unmarshal([]byte(out), &rel); err != nil || rel.Target.StartLine != 15 || rel.Target.EndLine != 16 {
		t.Errorf("related @Server.text: %v\n%s", err, out)
	}
	_, errOut, code := runCLI(t, "evidence", "add", "web/server.ts::@Server.nope", r)
	if code == 0 || !strings.Contains(errOut, `no symbol "Server.nope" in web/server.ts`) {
		t.Errorf("unknown member: exit %d\n%s", code, errOut)
	}
}

// A private member is selected as written in code (@Server.#route) or
// without its '#' (@Server.route), by evidence add and related alike; a
// '#' anywhere else still starts the tags.
func TestSelectorPrivateMember(t *testing.T) {
	root := symbolsWorkspace(t)
	r := "--root=" + root
	must(t, "flow", "new", "private", "--request", "Look at the server.", r)
	for _, c := range []struct{ sel, want string }{
		{"web/server.ts::@Server.#route", "web/server.ts:18-20 @Server.route"},
		{"web/server.ts::@Server.#secret#review", "web/server.ts:7-7 @Server.secret"},
	} {
		if out := must(t, "evidence", "add", c.sel, r); !strings.Contains(out, c.want) {
			t.Errorf("add %s: want %s\n%s", c.sel, c.want, out)
		}
	}
	names, _ := filepath.Glob(filepath.Join(flowDir(t, root), "ctx", "evidence", "*secret*"))
	if len(names) != 1 {
		t.Fatalf("parts of @Server.#secret: %v", names)
	}
	part, err := os.ReadFile(names[0])
	if err != nil || !strings.Contains(string(part), "symbol=Server.secret") || !strings.Contains(string(part), "tags=review") {
		t.Errorf("the part of @Server.#secret#review: %v\n%s", err, part)
	}
	for _, sel := range []string{"web/server.ts::@Server.#route", "web/server.ts::@Server.route", "web/server.ts::@Server.#route#bug"} {
		out := must(t, "related", "--json", r, sel)
		var rel struct {
			Target struct {
				StartLine int `json:"start_line"`
				EndLine   int `json:"end_line"`
			} `json:"target"`
			Callers []struct {
				Symbol string `json:"symbol"`
			} `json:"callers"`
		}
		if err := json.Unmarshal([]byte(out), &rel); err != nil || rel.Target.StartLine != 18 || rel.Target.EndLine != 20 ||
			len(rel.Callers) != 1 || rel.Callers[0].Symbol != "Server.fetch" {
			t.Errorf("related %s: %v\n%s", sel, err, out)
		}
	}
}
