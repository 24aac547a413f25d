//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/assemble/send/sendtest"
)

// askWorkspace is a workspace with one source file and a flow whose
// request is set, ready to send.
func askWorkspace(t *testing.T, name string) string {
	t.Helper()
	t.Setenv("FLOW_DIR", "")
	root := filepath.Join(t.TempDir(), name)
	writeFile(t, root, "parser/parse.go", "package parser\n\n// Parse splits a line.\nfunc Parse(l string) []string { return nil }\n")
	must(t, "flow", "new", "ask", "--root", root, "--request", "Explain the parser.")
	must(t, "evidence", "add", "parser/parse.go", "--root", root)
	return root
}

// TestWorkbenchE2ESendAsksFirst: in a real terminal, S for an endpoint
// off this machine opens a dialog with the model, tokens and cost; the
// rest of a burst of keys and n send nothing; S then y sends.
func TestWorkbenchE2ESendAsksFirst(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	srv := sendtest.NewRemote(t, sendtest.Script{Text: "The parser splits nothing yet."})
	root := askWorkspace(t, "askws")
	cfgHome := t.TempDir()
	writeFile(t, cfgHome, "dossier/config.toml", "[llm]\nbase_url = \""+srv.URL+"\"\nmodel = \"gpt-4o-mini\"\nmax_retries = -1\n")

	tm := startTmux(t, tmuxPath, root, cfgHome)
	tm.waitFor("the flow loaded", 20*time.Second, func(s *screen) bool { return strings.Contains(s.text, "Evidence 2/2") })
	tm.keys("S", "S", "j", "k")
	scr := tm.waitFor("the send dialog", 0, func(s *screen) bool { return strings.Contains(s.text, "Send turn 1 (") })
	for _, want := range []string{"Model:     gpt-4o-mini", "leaves this machine", "Input:     ", "Cost:      ~$", "y yes · n no"} {
		if !strings.Contains(scr.text, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, scr)
		}
	}
	tm.keys("n")
	tm.waitFor("not sent", 0, func(s *screen) bool {
		return strings.Contains(s.status(), "not sent (turn 1 to gpt-4o-mini not confirmed)")
	})
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests before a yes", n)
	}
	tm.keys("S")
	tm.waitFor("the send dialog again", 0, func(s *screen) bool { return strings.Contains(s.text, "Send turn 1 (") })
	tm.keys("y")
	tm.waitFor("turn 1", 20*time.Second, func(s *screen) bool { return strings.Contains(s.text, "Answer · turn 1 of 1 · gpt-4o-mini") })
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests after one yes", n)
	}
	tm.keys("q")
	tm.waitFor("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	tm.exited = true
}
