package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

func readResource(t *testing.T, cs *sdk.ClientSession, uri string) (string, error) {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	return res.Contents[0].Text, nil
}

func TestResources(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	_, cs := connect(t, root, true)
	if _, err := readResource(t, cs, PromptURI); err == nil || !strings.Contains(err.Error(), "flow_new") {
		t.Errorf("prompt without a flow: %v", err)
	}
	other := evidence.NewEngine(root)
	var b strings.Builder
	for _, words := range [][]string{{"flow", "new", "res"}, {"evidence", "add", "calc/calc.go::@Add"}, {"evidence", "add", "cmd/main.go"}} {
		if err := other.Exec(context.Background(), words, &b); err != nil {
			t.Fatalf("%v: %v", words, err)
		}
	}
	prompt, err := readResource(t, cs, PromptURI)
	if err != nil || !strings.Contains(prompt, "func Add(a, b int) int") {
		t.Fatalf("prompt resource: %v\n%s", err, prompt)
	}
	plan, err := readResource(t, cs, PlanURI)
	var v map[string]any
	if err != nil || json.Unmarshal([]byte(plan), &v) != nil || !strings.Contains(plan, "calc/calc.go") {
		t.Fatalf("ctxplan resource: %v\n%s", err, plan)
	}
	for _, s := range secrettest.All() {
		if first := strings.SplitN(s, "\n", 2)[0]; strings.Contains(prompt+plan, first) {
			t.Errorf("a resource shows the secret %.20s…", s)
		}
	}
	list, err := cs.ListResources(context.Background(), nil)
	if err != nil || len(list.Resources) != 2 {
		t.Errorf("resources/list: %v %v", err, list)
	}
}

func TestPrompts(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	_, cs := connect(t, root, false)
	list, err := cs.ListPrompts(context.Background(), nil)
	if err != nil || len(list.Prompts) != 4 {
		t.Fatalf("prompts/list: %v %v", err, list)
	}
	ok(t, cs, "flow_new", map[string]any{"name": "current"})
	// The current flow's budget and model (cl100k_base, where the default
	// is o200k_base) are the prompt's.
	other := evidence.NewEngine(root)
	for _, words := range [][]string{{"flow", "set", "budget", "7777"}, {"flow", "set", "model", "gpt-4"}} {
		if err := other.Exec(context.Background(), words, io.Discard); err != nil {
			t.Fatalf("%v: %v", words, err)
		}
	}
	before, _ := ok(t, cs, "evidence_status", nil)
	res, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "fix",
		Arguments: map[string]string{"target": "calc/calc.go::@Add", "request": "Add overflows at 100."}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Description, "cl100k_base") || !strings.Contains(res.Description, "of 7777 token limit") {
		t.Errorf("the prompt is not counted with the current flow's model and budget:\n%s", res.Description)
	}
	text := res.Messages[0].Content.(*sdk.TextContent).Text
	if !strings.Contains(text, "func Add(a, b int) int") || !strings.Contains(text, "TestAdd") || !strings.HasSuffix(text, "Add overflows at 100.\n") {
		t.Errorf("fix prompt:\n%s", text)
	}
	// A prompt is read: the current flow is as it was.
	if status, _ := ok(t, cs, "evidence_status", nil); status != before {
		t.Errorf("fetching a prompt changed the current flow:\n%s\nwas\n%s", status, before)
	}
	for _, target := range []string{"", "../x.go", "leak.txt"} {
		if _, err := cs.GetPrompt(context.Background(), &sdk.GetPromptParams{Name: "explain", Arguments: map[string]string{"target": target}}); err == nil {
			t.Errorf("explain %q: no error", target)
		}
	}
	_, ro := connect(t, root, true)
	if list, err := ro.ListPrompts(context.Background(), nil); err == nil && len(list.Prompts) != 0 {
		t.Errorf("a read-only server has prompts: %v", list.Prompts)
	}
}

// TestCallsLogged: every request is logged, tool errors included.
func TestCallsLogged(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	var buf bytes.Buffer
	srv := New(Options{Root: root, Engine: evidence.NewEngine(root), Search: search.NewEngine(), Log: log.New(&buf, "", 0)})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.SDK().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	ok(t, cs, "search", map[string]any{"query": "clamp"})
	fails(t, cs, "read", map[string]any{"selector": "../x"}, "leaves")
	cs.Close()
	ss.Wait()
	got := buf.String()
	for _, want := range []string{`mcp tools/call search {"query":"clamp"}`, "ok\n", `mcp tools/call read {"selector":"../x"}`, "tool error: ../x leaves the workspace"} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %q:\n%s", want, got)
		}
	}
}
