package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble/send/sendtest"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/store/config"
)

// TestSendAsksFirst: S for an endpoint off this machine sends nothing until
// y: the dialog names the model, the endpoint, the input tokens and the
// estimated cost; any key but y answers no (a word typed after S, a key
// typed while the request is prepared), n sends nothing, and /send asks
// the same.
func TestSendAsksFirst(t *testing.T) {
	srv := sendtest.NewRemote(t, sendtest.Script{Chunks: []string{"ok\n"}})
	m := sendModel(t, srv)
	m.run.confirm = true
	m = keys(t, m, "S")
	if m.focus != focusConfirm || m.ask == nil {
		t.Fatalf("S sent without asking: focus %d, status %q, %d requests", m.focus, m.status, len(srv.Requests()))
	}
	tokens := m.ask.ready.out.Tokens
	v := m.View()
	for _, want := range []string{"send: turn 1 to gpt-4o-mini", "Model:     gpt-4o-mini", "Endpoint:  POST " + srv.URL + "/responses · leaves this machine",
		"Input:     " + evidence.Thousands(tokens) + " tokens (turn 1)", "Cost:      ~$", "[ui] confirm_send = false", "Send turn 1 (" + evidence.Thousands(tokens) + " tokens to gpt-4o-mini, ~$", "y yes · n no"} {
		if !strings.Contains(v, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, v)
		}
	}
	m = keys(t, m, "j") // any key but y answers no
	if m.focus != focusList || m.ans.open || len(srv.Requests()) != 0 || !strings.Contains(m.status, "not sent") {
		t.Fatalf("stray keys: focus %d, answer pane open %v, %d requests, status %q", m.focus, m.ans.open, len(srv.Requests()), m.status)
	}
	m = keys(t, m, "S", "o", "r", "r", "y") // a word typed after S never reaches its y
	if len(srv.Requests()) != 0 {
		t.Fatalf("Sorry sent: %d requests, status %q", len(srv.Requests()), m.status)
	}
	// A key that arrives while the request is being prepared drops it.
	next, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("S")})
	m = next.(Model)
	next, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("o")})
	m = next.(Model)
	next, _ = m.Update(cmd())
	m = next.(Model)
	if m.focus == focusConfirm || len(srv.Requests()) != 0 || !strings.Contains(m.status, "keys were typed after S") {
		t.Fatalf("a key while preparing: focus %d, %d requests, status %q", m.focus, len(srv.Requests()), m.status)
	}
	m = keys(t, m, "S")
	if m.focus != focusConfirm {
		t.Fatalf("S alone did not ask: focus %d, status %q", m.focus, m.status)
	}
	m = keys(t, m, "n")
	if m.focus != focusList || m.ans.open || len(srv.Requests()) != 0 || !strings.Contains(m.status, "not sent") {
		t.Fatalf("n: focus %d, answer pane open %v, %d requests, status %q", m.focus, m.ans.open, len(srv.Requests()), m.status)
	}
	m = keys(t, m, ":")
	m = typeText(t, m, "/send")
	m = keys(t, m, "enter")
	if m.focus != focusConfirm || len(srv.Requests()) != 0 {
		t.Fatalf("/send did not ask: focus %d, %d requests, status %q", m.focus, len(srv.Requests()), m.status)
	}
	m = keys(t, m, "esc")
	if m.focus != focusList || len(srv.Requests()) != 0 {
		t.Fatalf("esc: focus %d, %d requests", m.focus, len(srv.Requests()))
	}
	m = keys(t, m, "S", "y")
	if len(srv.Requests()) != 1 || len(m.ans.turns) != 1 {
		t.Fatalf("y: %d requests, %d turns, status %q", len(srv.Requests()), len(m.ans.turns), m.status)
	}
}

// TestSendWithoutAsking: a send to a loopback endpoint, or with [ui]
// confirm_send = false, goes at once.
func TestSendWithoutAsking(t *testing.T) {
	local := sendtest.New(t, sendtest.Script{Chunks: []string{"ok\n"}})
	m := sendModel(t, local)
	m.run.confirm = true
	m = keys(t, m, "S")
	if m.ask != nil || len(local.Requests()) != 1 {
		t.Errorf("a loopback endpoint asked: focus %d, %d requests, status %q", m.focus, len(local.Requests()), m.status)
	}
	remote := sendtest.NewRemote(t, sendtest.Script{Chunks: []string{"ok\n"}})
	m = sendModel(t, remote)
	m.run.confirm = false
	m = keys(t, m, "S")
	if m.ask != nil || len(remote.Requests()) != 1 {
		t.Errorf("confirm_send = false asked: focus %d, %d requests, status %q", m.focus, len(remote.Requests()), m.status)
	}
}

// TestSendReadsTheConfigAgain: every send reads the config files again
// when they changed (no watcher runs here): the next S after an edit goes
// to the new endpoint and model; a config that no longer reads sends
// nothing and says why, until it is fixed.
func TestSendReadsTheConfigAgain(t *testing.T) {
	first := sendtest.New(t, sendtest.Script{Text: "First."})
	second := sendtest.New(t, sendtest.Script{Text: "Second."})
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	file := filepath.Join(cfgHome, "dossier", "config.toml")
	write := func(url, model, extra string) {
		t.Helper()
		text := "[llm]\nbase_url = \"" + url + "\"\nmodel = \"" + model + "\"\nmax_retries = -1\n" + extra
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(first.URL, "gpt-4o-mini", "")
	m, root := newTestModel(t, nil)
	load := func() (SendSettings, error) {
		cfg, err := config.Load(root)
		l := evidence.LLMConfig{}
		l.BaseURL, l.Model, l.MaxRetries = cfg.LLM.BaseURL, cfg.LLM.Model, cfg.LLM.MaxRetries
		return SendSettings{LLM: l, Confirm: cfg.UI.Confirm()}, err
	}
	s, err := load()
	if err != nil {
		t.Fatal(err)
	}
	m.opts.Engine.LLM = s.LLM
	m.run.settings, m.run.cfgFiles, m.run.cfgPrint = load, config.Files(root), filesPrint(config.Files(root))

	write(second.URL, "gpt-4.1-mini", "")
	m = keys(t, m, "S")
	if len(first.Requests()) != 0 || len(second.Requests()) != 1 || len(m.ans.turns) != 1 || m.ans.turns[0].Model != "gpt-4.1-mini" {
		t.Fatalf("after the edit: %d and %d requests, turns %v, status %q", len(first.Requests()), len(second.Requests()), m.ans.turns, m.status)
	}
	write(first.URL, "gpt-4o-mini", "modle = \"typo\"\n")
	m = keys(t, m, "S")
	if !m.statusErr || !strings.Contains(m.status, file) || !strings.Contains(m.status, "unknown setting llm.modle") || !strings.Contains(m.status, "nothing is sent") {
		t.Errorf("a broken config: status %q", m.status)
	}
	m = keys(t, m, "S") // unchanged since: still refused, not the last good settings
	if n := len(first.Requests()) + len(second.Requests()); n != 1 || len(m.ans.turns) != 1 {
		t.Fatalf("a broken config sent: %d requests, %d turns", n, len(m.ans.turns))
	}
	write(first.URL, "gpt-4o-mini", "")
	m = keys(t, m, "S")
	if len(first.Requests()) != 1 || len(m.ans.turns) != 2 {
		t.Fatalf("fixed: %d requests to the first server, %d turns, status %q", len(first.Requests()), len(m.ans.turns), m.status)
	}
}
