package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mcpClientDir holds the TypeScript SDK client; `make test` installs its
// node_modules (npm ci) when node is present.
const mcpClientDir = "testdata/mcpclient"

// tsClient returns the node binary and the client script, or skips the
// test saying what it needs.
func tsClient(t *testing.T) (string, string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the MCP end-to-end test with the TypeScript SDK needs node 18 or later")
	}
	if _, err := os.Stat(filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skip("the TypeScript MCP SDK is not installed: run `make test` (or `npm ci` in cmd/dossier/" + mcpClientDir + ")")
	}
	script, err := filepath.Abs(filepath.Join(mcpClientDir, "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	return node, script
}

// clientReport is what client.mjs prints.
type clientReport struct {
	Server struct{ Name string } `json:"server"`
	Tools  []struct {
		Name     string   `json:"name"`
		Required []string `json:"required"`
	} `json:"tools"`
	Search struct {
		IsError    bool           `json:"isError"`
		Text       string         `json:"text"`
		Structured map[string]any `json:"structured"`
	} `json:"search"`
	Read struct {
		IsError    bool           `json:"isError"`
		Text       string         `json:"text"`
		Structured map[string]any `json:"structured"`
	} `json:"read"`
	Escape struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
	} `json:"escape"`
}

// runTSClient runs client.mjs with args and decodes its report.
func runTSClient(t *testing.T, args ...string) clientReport {
	t.Helper()
	node, script := tsClient(t)
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Env = append(os.Environ(), "DOSSIER_AS_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the TypeScript client failed: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	var rep clientReport
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatalf("the client's report is not JSON: %v\n%s", err, stdout.String())
	}
	return rep
}

// TestMCPTypeScriptClient runs `dossier mcp` (this test binary) under the
// official TypeScript SDK's stdio client: it lists the tools, searches,
// reads, and is refused a path out of the workspace.
func TestMCPTypeScriptClient(t *testing.T) {
	tsClient(t)
	t.Setenv("FLOW_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := workspace(t, 3)
	must(t, "index", "--root", root)
	rep := runTSClient(t, "--query", "F1_7 does a thing", "--selector", "pkg000/f1.go::1,5", "--", os.Args[0], "mcp", "--root", root)
	checkTSReport(t, rep)
}

func checkTSReport(t *testing.T, rep clientReport) {
	t.Helper()
	if rep.Server.Name != "dossier" {
		t.Errorf("server name %q", rep.Server.Name)
	}
	var names []string
	for _, tl := range rep.Tools {
		names = append(names, tl.Name)
		if tl.Name == "search" && !slices.Equal(tl.Required, []string{"query"}) {
			t.Errorf("search requires %v, want [query]", tl.Required)
		}
	}
	for _, want := range []string{"search", "read", "related", "assemble", "evidence_add", "flow_new", "ask"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	if rep.Search.IsError || !strings.Contains(rep.Search.Text, "pkg000/f1.go") || !strings.Contains(rep.Search.Text, "func F1_7(x int) int") {
		t.Errorf("search:\n%s", rep.Search.Text)
	}
	results, _ := rep.Search.Structured["results"].([]any)
	if len(results) == 0 {
		t.Fatalf("search structuredContent has no results: %v", rep.Search.Structured)
	}
	if r := results[0].(map[string]any); r["path"] != "pkg000/f1.go" || r["symbol"] != "F1_7" {
		t.Errorf("first result: %v", r)
	}
	if want := "pkg000/f1.go:1-5\n1  package p0\n2  \n3  // F1_0 does a thing.\n4  func F1_0(x int) int {\n5  \treturn x * 0\n"; rep.Read.IsError || rep.Read.Text != want {
		t.Errorf("read:\n%q\nwant\n%q", rep.Read.Text, want)
	}
	if rep.Read.Structured["path"] != "pkg000/f1.go" {
		t.Errorf("read structuredContent: %v", rep.Read.Structured)
	}
	if !rep.Escape.IsError || !strings.Contains(rep.Escape.Text, "leaves the workspace") {
		t.Errorf("read ../../etc/passwd: %+v", rep.Escape)
	}
}
