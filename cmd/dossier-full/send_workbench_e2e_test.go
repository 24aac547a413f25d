//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/assemble/send/sendtest"
)

// TestWorkbenchSendE2E closes the loop in a real terminal: the request is
// written with /request and extended in $VISUAL (a script that appends a
// line) through the editor key, the flow is sent with S to a fake
// Responses server configured as [llm] in the user config, the answer
// streams onto the screen, a follow-up becomes turn 2, and the turns are
// on disk after quitting.
func TestWorkbenchSendE2E(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	root := filepath.Join(t.TempDir(), "sendws")
	writeFile(t, root, "go.mod", "module example.com/sendws\n\ngo 1.22\n")
	writeFile(t, root, "parser/parse.go", "package parser\n\nimport \"strings\"\n\n"+
		"// Parse splits a line into its fields.\nfunc Parse(line string) []string {\n\treturn strings.Fields(line)\n}\n")

	srv := sendtest.New(t, sendtest.Script{
		Chunks: []string{"The parser ", "drops empty fields: ", "see parser/parse.go:6 and ", "`Parse`.\n\n", "Use **strings.Split**."},
		Delay:  30 * time.Millisecond,
	})
	cfgHome := t.TempDir()
	writeFile(t, cfgHome, "dossier/config.toml", "[llm]\nbase_url = \""+srv.URL+"\"\nmodel = \"gpt-4o-mini\"\nmax_retries = -1\n")
	editor := filepath.Join(t.TempDir(), "editor.sh")
	writeFile(t, filepath.Dir(editor), "editor.sh", "#!/bin/sh\nprintf 'Keep empty fields.\\n' >> \"$1\"\n")
	if err := os.Chmod(editor, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("VISUAL", editor) // the pane's environment is the test's

	tm := startTmux(t, tmuxPath, root, cfgHome)
	tm.waitFor("the flow loaded", 20*time.Second, func(s *screen) bool {
		return strings.HasPrefix(s.title(), "dossier · sendws-") && strings.Contains(s.status(), "index up to date")
	})
	id, err := os.ReadFile(filepath.Join(root, ".dossier", "flows", "current"))
	if err != nil {
		t.Fatal(err)
	}
	flowDir := filepath.Join(root, ".dossier", "flows", strings.TrimSpace(string(id)))
	reqFile := filepath.Join(flowDir, "ctx", "010_request.user.md")

	// 1. /request sets the request.
	command(tm, "/request fix the parser")
	tm.waitFor("the request part", 0, func(s *screen) bool { return strings.Contains(s.text, "010_request") })
	if got := readText(t, reqFile); got != "fix the parser\n" {
		t.Fatalf("request %q", got)
	}

	// 2. E on the request (the only part, selected) opens $VISUAL; the
	// edit is set back through `flow set request`.
	tm.keys("E")
	waitFile(t, tm, reqFile, "fix the parser\nKeep empty fields.\n")

	// 3. S sends; the answer streams onto the screen and is rendered.
	tm.keys("S")
	// Glamour renders the finished answer in the background: until then
	// the pane shows the plain text with "rendering …" in its title. The
	// answer's references arrive on their own, before or after.
	scr := tm.waitFor("turn 1 on screen, rendered, with its references", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "Answer · turn 1 of 1 · gpt-4o-mini") && strings.Contains(s.text, "strings.Split") &&
			!strings.Contains(s.text, "rendering …") && strings.Contains(s.text, "References (1-9 adds one as evidence):")
	})
	for _, want := range []string{"The parser drops empty fields", "References (1-9 adds one as evidence):", "parser/parse.go::"} {
		if !strings.Contains(scr.text, want) {
			t.Errorf("the screen lacks %q:\n%s", want, scr)
		}
	}
	// Glamour drops the backticks of inline code in every style; its
	// ascii style (a terminal without colours, as on some CI machines)
	// keeps the ** of strong text, so that is no sign either way.
	if strings.Contains(scr.text, "`Parse`") {
		t.Errorf("the answer is not rendered as Markdown:\n%s", scr)
	}

	// 4. A follow-up is turn 2.
	srv.SetScript(sendtest.Script{Text: "Turn two: keep a test for the empty field."})
	command(tm, "/followup and a test?")
	tm.waitFor("turn 2 on screen", 20*time.Second, func(s *screen) bool {
		return strings.Contains(s.text, "turn 2 of 2") && strings.Contains(s.text, "Turn two: keep a test")
	})
	tm.keys("[")
	tm.waitFor("turn 1 again", 0, func(s *screen) bool { return strings.Contains(s.text, "turn 1 of 2") })

	// 5. Quit; the turns are on disk.
	tm.keys("q")
	tm.waitFor("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker+"0.") })
	tm.exited = true
	turns := filepath.Join(flowDir, "turns")
	for _, name := range []string{"001.request.json", "001.answer.md", "002.request.json", "002.answer.md"} {
		if _, err := os.Stat(filepath.Join(turns, name)); err != nil {
			t.Errorf("turns/%s: %v (have: %s)", name, err, listDir(turns))
		}
	}
	if a := readText(t, filepath.Join(turns, "001.answer.md")); !strings.Contains(a, "Use **strings.Split**.") {
		t.Errorf("001.answer.md:\n%s", a)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	var body struct {
		Input []struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil || len(body.Input) == 0 || len(body.Input[0].Content) == 0 {
		t.Fatalf("request 1: %v\n%s", err, reqs[0].Body)
	}
	if first := body.Input[0].Content[0].Text; !strings.Contains(first, "fix the parser\nKeep empty fields.") {
		t.Errorf("request 1 asks %q", first)
	}
	if !strings.Contains(string(reqs[1].Body), "and a test?") {
		t.Errorf("request 2 lacks the follow-up:\n%s", reqs[1].Body)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// waitFile waits until path holds want, failing with the screen.
func waitFile(t *testing.T, tm *tmuxTerm, path, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		raw, _ := os.ReadFile(path)
		if string(raw) == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is %q, want %q; the screen:\n%s", path, raw, want, tm.capture())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// command types a command line, waiting for each step to show: keys
// typed in one burst arrive as one key message.
func command(tm *tmuxTerm, line string) {
	tm.t.Helper()
	tm.keys(":")
	tm.waitFor("the command line", 0, func(s *screen) bool { return strings.HasPrefix(s.bottom(), ":") })
	tm.literal(line)
	tm.waitFor("the typed command", 0, func(s *screen) bool { return strings.HasPrefix(s.bottom(), ":"+line) })
	tm.keys("Enter")
}

// TestWorkbenchHangupKeepsTheAnswer: the terminal goes away (the tmux
// session is killed, which hangs up the pane) while an answer streams in
// and the server stalls: the part that arrived is kept as an incomplete
// turn, as Ctrl-C and SIGTERM keep it.
func TestWorkbenchHangupKeepsTheAnswer(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	root := filepath.Join(t.TempDir(), "hupws")
	writeFile(t, root, "calc/calc.go", "package calc\n\n// Div divides.\nfunc Div(a, b int) int { return a / b }\n")
	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"So ", "far ", "never"}, Stall: true, StallAfter: 2})
	cfgHome := t.TempDir()
	writeFile(t, cfgHome, "dossier/config.toml", "[llm]\nbase_url = \""+srv.URL+"\"\nmodel = \"gpt-4o-mini\"\nmax_retries = -1\ntimeout = \"10m\"\n")
	tm := startTmux(t, tmuxPath, root, cfgHome)
	tm.waitFor("the flow loaded", 20*time.Second, func(s *screen) bool {
		return strings.HasPrefix(s.title(), "dossier · hupws-") && strings.Contains(s.status(), "index up to date")
	})
	id, err := os.ReadFile(filepath.Join(root, ".dossier", "flows", "current"))
	if err != nil {
		t.Fatal(err)
	}
	answer := filepath.Join(root, ".dossier", "flows", strings.TrimSpace(string(id)), "turns", "001.answer.md")
	command(tm, "/request why does Div panic?")
	tm.waitFor("the request part", 0, func(s *screen) bool { return strings.Contains(s.text, "010_request") })
	tm.keys("S")
	tm.waitFor("the answer streaming", 20*time.Second, func(s *screen) bool { return strings.Contains(s.text, "So far") })
	tm.mustRun("kill-session", "-t", "e2e")
	var raw []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if raw, err = os.ReadFile(answer); err == nil {
			break
		}
	}
	if !strings.Contains(string(raw), "status=incomplete; reason=cancelled -->\n\nSo far \n") {
		t.Errorf("%s after the hangup: %v\n%s", answer, err, raw)
	}
}
