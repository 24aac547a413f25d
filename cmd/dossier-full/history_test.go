package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dossierhq/dossier/assemble/send/sendtest"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// gitRepo makes a git repository in a temporary directory; commit commits
// everything with a fixed author and a date one day after the last.
type gitRepo struct {
	t    *testing.T
	root string
	day  int
}

func newGitRepo(t *testing.T) *gitRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed: file_change chunks need the git CLI")
	}
	g := &gitRepo{t: t, root: t.TempDir()}
	g.git("init", "-q", "-b", "main")
	return g
}

func (g *gitRepo) git(args ...string) string {
	g.t.Helper()
	cmd := exec.Command("git", append([]string{"-C", g.root}, args...)...)
	date := fmt.Sprintf("2026-02-%02dT09:00:00Z", 1+g.day)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ana Lima", "GIT_AUTHOR_EMAIL=ana@example.com", "GIT_COMMITTER_NAME=Ana Lima",
		"GIT_COMMITTER_EMAIL=ana@example.com", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		g.t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (g *gitRepo) commit(files map[string]string, msg string, amend bool) {
	g.t.Helper()
	writeTree(g.t, g.root, files)
	g.day++
	g.git("add", "-A")
	args := []string{"commit", "-q", "-m", msg}
	if amend {
		args = append(args, "--amend")
	}
	g.git(args...)
}

func searchJSON(t *testing.T, root string, args ...string) search.Response {
	t.Helper()
	out := must(t, append([]string{"search", "--root", root, "--json"}, args...)...)
	var resp search.Response
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatalf("search output: %v\n%s", err, out)
	}
	return resp
}

// hitText is the text of a result's lines in its file.
func hitText(t *testing.T, root string, r search.Result) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(r.Path)))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	return strings.Join(lines[r.StartLine-1:min(r.EndLine, len(lines))], "\n")
}

const invoiceController = `<?php
namespace App\Http\Controllers;

class InvoiceController extends Controller
{
    public function store($request)
    {
        return Invoice::create($request->all());
    }

    public function show($id)
    {
        return Invoice::find($id);
    }
}
`

func TestFileChangeSearchIsIncremental(t *testing.T) {
	g := newGitRepo(t)
	ctrl := "app/Http/Controllers/InvoiceController.php"
	g.commit(map[string]string{ctrl: invoiceController, "app/Models/Invoice.php": "<?php\nclass Invoice extends Model {}\n"}, "Add invoices", false)
	g.commit(map[string]string{"app/Models/Invoice.php": "<?php\nclass Invoice extends Model { protected $table = 'bills'; }\n"}, "Invoices live in the bills table", false)
	g.commit(map[string]string{ctrl: strings.Replace(invoiceController, "$request->all()", "$request->validated()", 1)},
		"Store only validated invoice fields\n\nMass assignment let clients set paid_at.", false)
	must(t, "index", "--root", g.root)

	// "What changed about InvoiceController": its commits, the one that
	// names the changed method first, as real text that evidence can quote.
	resp := searchJSON(t, g.root, "--type", "file_change", "InvoiceController store")
	if len(resp.Results) == 0 {
		t.Fatal("no file_change results for InvoiceController")
	}
	top := resp.Results[0]
	if top.Path != ".dossier/history/"+ctrl+".md" {
		t.Fatalf("top result %s, want the controller's history", top.Path)
	}
	text := hitText(t, g.root, top)
	for _, want := range []string{"Store only validated invoice fields", "Mass assignment let clients set paid_at.",
		"- author: Ana Lima", "- date: 2026-02-04T09:00:00+00:00", "- changed: store"} {
		if !strings.Contains(text, want) {
			t.Errorf("the top hit's lines lack %q:\n%s", want, text)
		}
	}
	for _, r := range resp.Results {
		if !strings.HasPrefix(r.Path, ".dossier/history/") {
			t.Errorf("--type file_change gave %s", r.Path)
		}
	}
	// A search that names no type finds code, never the history.
	for _, r := range searchJSON(t, g.root, "InvoiceController store").Results {
		if strings.HasPrefix(r.Path, ".dossier/") {
			t.Errorf("an untyped search gave %s", r.Path)
		}
	}
	// The hit is evidence like any other: its part holds the commit.
	must(t, "flow", "new", "why", "--root", g.root)
	must(t, "evidence", "add", "--root", g.root, fmt.Sprintf("%s::%d,%d", top.Path, top.StartLine, top.EndLine))
	if out := must(t, "assemble", "--root", g.root); !strings.Contains(out, "Store only validated invoice fields") {
		t.Errorf("the assembled prompt lacks the commit:\n%s", out)
	}

	// A new commit appears after the next index; an unchanged HEAD reads none.
	g.commit(map[string]string{ctrl: strings.Replace(invoiceController, "Invoice::find($id)", "Invoice::findOrFail($id)", 1)},
		"Show answers 404 for a missing invoice", false)
	var sum struct {
		Notes map[string]int `json:"notes"`
	}
	out := must(t, "--root", g.root, "--json", "index")
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Notes["history_commits_read"] != 1 {
		t.Fatalf("index after one commit: notes %v (%v), want 1 commit read\n%s", sum.Notes, err, out)
	}
	if !hitsSay(t, g.root, "Show answers 404 for a missing invoice", "Show answers 404 for a missing invoice") {
		t.Error("the new commit is not found after index")
	}
	sum.Notes = nil
	out = must(t, "--root", g.root, "--json", "index")
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Notes["history_commits_read"] != 0 {
		t.Errorf("index with an unchanged HEAD read commits: %v", sum.Notes)
	}

	// Amending rewrites history: the replaced commit is gone, its
	// replacement found.
	g.commit(map[string]string{ctrl: strings.Replace(invoiceController, "Invoice::find($id)", "Invoice::findOrFail($id)", 1) + "\n"},
		"Show fails loudly on unknown invoices", true)
	must(t, "index", "--root", g.root)
	if hitsSay(t, g.root, "Show answers 404 for a missing invoice", "Show answers 404 for a missing invoice") {
		t.Error("the amended-away commit is still found")
	}
	if !hitsSay(t, g.root, "Show fails loudly on unknown invoices", "Show fails loudly on unknown invoices") {
		t.Error("the amended commit is not found")
	}
}

// hitsSay reports whether a file_change search for q has a hit whose
// lines hold want.
func hitsSay(t *testing.T, root, q, want string) bool {
	t.Helper()
	for _, r := range searchJSON(t, root, "--type", "file_change", q).Results {
		if strings.Contains(hitText(t, root, r), want) {
			return true
		}
	}
	return false
}

func TestFileChangeWithoutHistory(t *testing.T) {
	// No repository: the index runs, and the type is known but empty.
	root := t.TempDir()
	writeTree(t, root, map[string]string{"a.go": "package a\n"})
	must(t, "index", "--root", root)
	if resp := searchJSON(t, root, "--type", "file_change,run_summary", "a"); len(resp.Results) != 0 {
		t.Errorf("results without history: %+v", resp.Results)
	}
	// History turned off removes what an earlier run kept.
	g := newGitRepo(t)
	g.commit(map[string]string{"a.go": "package a\n\nfunc A() {}\n"}, "Add A", false)
	must(t, "index", "--root", g.root)
	if !hitsSay(t, g.root, "Add A", "Add A") {
		t.Fatal("no history to turn off")
	}
	writeTree(t, g.root, map[string]string{".dossier.toml": "[index]\nhistory_depth = 0\n"})
	must(t, "index", "--root", g.root)
	if resp := searchJSON(t, g.root, "--type", "file_change", "Add A"); len(resp.Results) != 0 {
		t.Errorf("history off still finds %+v", resp.Results)
	}
	if _, err := os.Stat(filepath.Join(g.root, ".dossier", "history")); !os.IsNotExist(err) {
		t.Errorf("history off leaves .dossier/history: %v", err)
	}
}

func TestRunSummaryFromSend(t *testing.T) {
	answer := "InvoiceController.store now rounds totals; the key " + secrettest.AWSKey + " was in the logs."
	root, _ := sendWorkspace(t, "responses", sendtest.Script{Text: answer}, "")
	if _, errOut, code := runSend(t, root); code != 0 {
		t.Fatalf("send: exit %d\n%s", code, errOut)
	}
	must(t, "index", "--root", root)

	resp := searchJSON(t, root, "--type", "run_summary", "InvoiceController")
	if len(resp.Results) != 1 || !strings.HasSuffix(resp.Results[0].Path, "/turns/001.answer.md") {
		t.Fatalf("run_summary results %+v, want the kept answer", resp.Results)
	}
	// The finder carries the flow's request and the turn's model: the
	// request's words find the answer that does not repeat them.
	if resp := searchJSON(t, root, "--type", "run_summary", "why does Div panic on zero"); len(resp.Results) != 1 {
		t.Errorf("the request does not find its answer: %+v", resp.Results)
	}
	if resp := searchJSON(t, root, "--type", "run_summary", "gpt-4o-mini"); len(resp.Results) != 1 {
		t.Errorf("the model does not find the answer: %+v", resp.Results)
	}
	// Redacted as everything else.
	out := must(t, "search", "--root", root, "--type", "run_summary", "--mode", "regex", "AKIA[0-9A-Z]{16}")
	if strings.Contains(out, secrettest.AWSKey) || !strings.Contains(out, "[REDACTED:aws-access-token]") {
		t.Errorf("the answer's key is not redacted:\n%s", out)
	}
	// A flow removed takes its answers out of the index.
	if err := os.RemoveAll(flowDir(t, root)); err != nil {
		t.Fatal(err)
	}
	must(t, "index", "--root", root)
	if resp := searchJSON(t, root, "--type", "run_summary", "InvoiceController"); len(resp.Results) != 0 {
		t.Errorf("a removed flow's answer is still found: %+v", resp.Results)
	}
}

// TestMCPSearchFileChangeAndWatch runs `dossier mcp` as a process on a
// git repository: its search tool takes the file_change type, and its
// index keeper picks up a commit made while it runs.
func TestMCPSearchFileChangeAndWatch(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	g := newGitRepo(t)
	// .dossier/ ignored as the README says: `git add -A` would read the
	// index file while the server's keeper writes it ("unstable object
	// source data").
	g.commit(map[string]string{".gitignore": ".dossier/\n", "app/Http/Controllers/InvoiceController.php": invoiceController}, "Add the invoice controller", false)
	must(t, "index", "--root", g.root)
	cmd := dossier("mcp", "--root", g.root)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	find := func(q string) string {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "search", Arguments: map[string]any{"query": q, "types": []string{"file_change"}}})
		if err != nil || res.IsError {
			t.Fatalf("search %q: %v %+v", q, err, res)
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	if out := find("InvoiceController"); !strings.Contains(out, ".dossier/history/app/Http/Controllers/InvoiceController.php.md") {
		t.Fatalf("search types [file_change]:\n%s", out)
	}
	g.commit(map[string]string{"app/Http/Controllers/InvoiceController.php": invoiceController + "\n"}, "Reformat the invoice controller", false)
	// The query is echoed in the answer: look for the commit's heading.
	for !strings.Contains(find("Reformat the invoice controller"), "Reformat the invoice controller  score") {
		if ctx.Err() != nil {
			t.Fatalf("the keeper never took in the new commit; stderr:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestFileChangeOfAReturningFile: a file removed, indexed without, and
// back with HEAD unmoved has its history found again.
func TestFileChangeOfAReturningFile(t *testing.T) {
	g := newGitRepo(t)
	g.commit(map[string]string{"frob.go": "package frob\n\nfunc Frob() {}\n"}, "Add frob", false)
	g.commit(map[string]string{"frob.go": "package frob\n\nfunc Frob() int { return 1 }\n"}, "Tune frobnicate zorblax", false)
	must(t, "index", "--root", g.root)
	if !hitsSay(t, g.root, "zorblax", "zorblax") {
		t.Fatal("no history for frob.go")
	}
	src, aside := filepath.Join(g.root, "frob.go"), filepath.Join(t.TempDir(), "frob.go")
	if err := os.Rename(src, aside); err != nil {
		t.Fatal(err)
	}
	must(t, "index", "--root", g.root)
	if err := os.Rename(aside, src); err != nil {
		t.Fatal(err)
	}
	for run := 1; run <= 2; run++ {
		must(t, "index", "--root", g.root)
		if !hitsSay(t, g.root, "zorblax", "zorblax") {
			t.Errorf("run %d after frob.go came back: its history is not found", run)
		}
	}
}

// TestFileChangeSubjectSecret: a secret in a commit's subject (the history
// section's heading, its symbol) is redacted in search results too.
func TestFileChangeSubjectSecret(t *testing.T) {
	g := newGitRepo(t)
	g.commit(map[string]string{"deploy.go": "package deploy\n\nfunc Deploy() {}\n"}, "Add deploy", false)
	g.commit(map[string]string{"deploy.go": "package deploy\n\nfunc Deploy() int { return 1 }\n"},
		"Use deploy key "+secrettest.AWSKey+" for now", false)
	must(t, "index", "--root", g.root)
	out := must(t, "search", "--root", g.root, "--json", "--type", "file_change", "deploy key")
	if !strings.Contains(out, "deploy key") {
		t.Fatalf("the commit is not found:\n%s", out)
	}
	if strings.Contains(out, secrettest.AWSKey) {
		t.Errorf("the key is shown:\n%s", out)
	}
	if out := must(t, "search", "--root", g.root, "--type", "file_change", "deploy key"); strings.Contains(out, secrettest.AWSKey) {
		t.Errorf("the key is shown:\n%s", out)
	}
}
