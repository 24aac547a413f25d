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
	tm.waitFor("the flow loaded and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "Evidence 2/2") && strings.Contains(s.status(), "index up to date")
	})
	tm.keys("S", "S", "j", "k")
	tm.waitFor("the burst not sent", 0, func(s *screen) bool { return strings.Contains(s.status(), "not sent") })
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("a burst of keys sent %d requests", n)
	}
	tm.keys("S")
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

// TestWorkbenchE2EConfigReread: the workbench reads [llm] again when the
// config file changes: the status line names the new model and endpoint
// and the next S sends there; a config that no longer reads is named on
// the status line and sends nothing; fixed, it sends again.
func TestWorkbenchE2EConfigReread(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	first := sendtest.New(t, sendtest.Script{Text: "First server."})
	second := sendtest.New(t, sendtest.Script{Text: "Second server."})
	root := askWorkspace(t, "rereadws")
	cfgHome := t.TempDir()
	llm := func(url, model string) string {
		return "[llm]\nbase_url = \"" + url + "\"\nmodel = \"" + model + "\"\nmax_retries = -1\n"
	}
	writeFile(t, cfgHome, "dossier/config.toml", llm(first.URL, "gpt-4o-mini"))

	tm := startTmux(t, tmuxPath, root, cfgHome)
	// The index's notice would replace the config's on the status line.
	tm.waitFor("the flow loaded and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "Evidence 2/2") && strings.Contains(s.status(), "index up to date")
	})
	writeFile(t, cfgHome, "dossier/config.toml", llm(second.URL, "gpt-4.1-mini"))
	tm.waitFor("the new [llm] on the status line", 0, func(s *screen) bool {
		return strings.Contains(s.status(), "config changed: S sends to gpt-4.1-mini at "+second.URL)
	})
	tm.keys("S")
	tm.waitFor("turn 1 from the second server", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "Answer · turn 1 of 1 · gpt-4.1-mini") && strings.Contains(s.text, "Second server.")
	})
	if len(first.Requests()) != 0 || len(second.Requests()) != 1 {
		t.Fatalf("requests: %d to the first server, %d to the second", len(first.Requests()), len(second.Requests()))
	}
	if body, err := second.Requests()[0].JSON(); err != nil || body["model"] != "gpt-4.1-mini" {
		t.Errorf("the request named model %v (%v)", body["model"], err)
	}

	writeFile(t, cfgHome, "dossier/config.toml", llm(first.URL, "gpt-4o-mini")+"modle = \"typo\"\n")
	tm.waitFor("the broken config on the status line", 0, func(s *screen) bool {
		return strings.HasPrefix(s.status(), "config ") && strings.Contains(s.status(), "unknown setting llm.modle")
	})
	// Refused: a send that went with the last good settings would be turn
	// 2, and the one below turn 3. The answer pane, closed first, opens on
	// S: the status under it is then S's, not the watcher's.
	tm.keys("Escape")
	tm.waitFor("the answer pane closed", 0, func(s *screen) bool { return strings.Contains(s.text, "Evidence 2/2") })
	tm.keys("S")
	tm.waitFor("the send refused", 0, func(s *screen) bool {
		return strings.Contains(s.text, "Answer · turn 1 of 1") && strings.Contains(s.status(), "unknown setting llm.modle")
	})

	writeFile(t, cfgHome, "dossier/config.toml", llm(first.URL, "gpt-4o-mini"))
	tm.waitFor("the fixed config", 0, func(s *screen) bool { return strings.Contains(s.status(), "S sends to gpt-4o-mini") })
	tm.keys("S")
	tm.waitFor("turn 2 from the first server", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "turn 2 of 2 · gpt-4o-mini") && strings.Contains(s.text, "First server.")
	})
	if len(first.Requests()) != 1 || len(second.Requests()) != 1 {
		t.Errorf("requests: %d to the first server, %d to the second", len(first.Requests()), len(second.Requests()))
	}
	tm.keys("q")
	tm.waitFor("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	tm.exited = true
}
