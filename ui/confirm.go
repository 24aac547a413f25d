package ui

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/ui/termsafe"
)

// Two things ask first, in one dialog:
//
// An `:evidence add` of a folder or glob of more than a handful of files,
// as the CLI does on a terminal: the engine writes its preview (each
// file's tokens, the total against the budget, full text or outlines) and
// refuses without a yes (evidence.ConfirmError); the workbench shows that
// preview in a dialog, and y runs the same command line again with --yes.
// The preview and the add are the engine's; only the question is the
// workbench's.
//
// A send (S, /send, /followup) to an endpoint off this machine, a paid
// request a stray capital S in a burst of keys must not make: the request
// is prepared as it will go, and the dialog shows its model, endpoint,
// input tokens and estimated cost; y sends that request. A send to
// localhost or a loopback address (evidence.Outgoing.Loopback) does not
// ask, nor any when [ui] confirm_send is false (Options.ConfirmSend).

// confirmAsk is the add or send waiting for an answer.
type confirmAsk struct {
	title, preview, question string
	// no is the status line when the answer is no.
	no string
	// words add the files when the answer is yes (an add); ready is the
	// request that goes when it is (a send).
	words []string
	ready *sendReadyMsg
	// back is where the keys went before the dialog opened.
	back focusArea
}

// open shows the dialog of a.
func (m *Model) openAsk(a *confirmAsk, status string) {
	a.back = m.focus
	if a.back == focusConfirm || a.back == focusCommand {
		a.back = focusList
	}
	m.ask, m.focus = a, focusConfirm
	m.status, m.statusErr = fmt.Sprintf("%s %s yes, %s no", status, m.keys.Yes.Help().Key, m.keys.No.Help().Key), false
}

// asks opens the dialog when msg is an add that wants a yes, and reports
// whether it did.
func (m *Model) asks(msg execMsg) bool {
	var ce *evidence.ConfirmError
	if !errors.As(msg.err, &ce) || m.ask != nil || len(msg.act.do) < 2 || msg.act.do[1] != "add" {
		return false
	}
	// --yes right after "add": after a "--" it would be read as a path
	words := append(append(slices.Clone(msg.act.do[:2]), "--yes"), msg.act.do[2:]...)
	m.openAsk(&confirmAsk{words: words, preview: strings.TrimRight(msg.out, "\n"),
		title:    fmt.Sprintf("evidence add: %d files", ce.Files),
		question: fmt.Sprintf("Add these %d files?", ce.Files),
		no:       fmt.Sprintf("nothing added (%d files not confirmed)", ce.Files)},
		fmt.Sprintf("add %d files?", ce.Files))
	return true
}

// asksToSend opens the dialog for a prepared send that must ask first,
// and reports whether it did.
func (m *Model) asksToSend(msg sendReadyMsg) bool {
	if !msg.ask {
		return false
	}
	out := msg.out
	cost := "cost unknown"
	if out.HasCost {
		cost = evidence.CostWord(out.Cost)
	}
	what := fmt.Sprintf("%s tokens to %s, %s", evidence.Thousands(out.Tokens), termsafe.Line(out.Model), cost)
	m.openAsk(&confirmAsk{ready: &msg, preview: sendPreview(out),
		title:    fmt.Sprintf("send: turn %d to %s", out.N, termsafe.Line(out.Model)),
		question: fmt.Sprintf("Send turn %d (%s)?", out.N, what),
		no:       fmt.Sprintf("not sent (turn %d to %s not confirmed)", out.N, termsafe.Line(out.Model))},
		"send "+what+"?")
	return true
}

// sendPreview is what a send that asks shows: where it goes, what it
// costs, and how not to be asked.
func sendPreview(out *evidence.Outgoing) string {
	earlier := ""
	switch {
	case out.ServerState:
		earlier = ", continuing the server's conversation"
	case out.Earlier == 1:
		earlier = ", 1 earlier turn resent"
	case out.Earlier > 1:
		earlier = fmt.Sprintf(", %d earlier turns resent", out.Earlier)
	}
	cost := "unknown: dossier has no price for this model ([llm] input_price and output_price set one)"
	if out.HasCost {
		cost = evidence.CostWord(out.Cost) + " for the input (the answer's tokens add to it)"
	}
	lines := []string{
		"Model:     " + termsafe.Line(out.Model),
		"Endpoint:  POST " + termsafe.Line(out.Endpoint) + " · leaves this machine",
		fmt.Sprintf("Input:     %s tokens (turn %d%s)", evidence.Thousands(out.Tokens), out.N, earlier),
		"Cost:      " + cost,
	}
	if n := len(out.Redactions); n > 0 {
		lines = append(lines, fmt.Sprintf("Secrets:   %d redacted in what goes", n))
	}
	return strings.Join(lines, "\n") + "\n\n[ui] confirm_send = false in your config.toml sends without asking."
}

// confirmKey answers the dialog: yes adds or sends, no or esc does not;
// any other key leaves an add's dialog open and answers a send's no (a
// word typed after S must not reach its y).
func (m Model) confirmKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	a := m.ask
	if a == nil {
		m.focus = focusList
		return m, nil
	}
	switch {
	case key.Matches(msg, m.keys.Yes):
		m.ask, m.focus = nil, a.back
		if a.ready != nil {
			return m.startSend(*a.ready)
		}
		return m.runWords(a.words, nil)
	case key.Matches(msg, m.keys.No), key.Matches(msg, m.keys.Cancel), a.ready != nil:
		m.ask, m.focus = nil, a.back
		if a.ready != nil {
			m.ans.open = m.ans.wasOpen
		}
		m.status, m.statusErr = a.no, false
	}
	return m, nil
}

// confirmView is the dialog: the preview and the question.
func (m Model) confirmView(w, h int) string {
	a := m.ask
	if a == nil {
		return m.pane("", "", w, h, true)
	}
	question := fmt.Sprintf("%s %s yes · %s no", a.question, m.keys.Yes.Help().Key, m.keys.No.Help().Key)
	// Long lines wrap (the totals line names the budget at its end).
	lines := strings.Split(ansi.Wrap(a.preview, max(10, w-4), ""), "\n")
	// The question and the totals at the end of the preview stay in view:
	// a long list loses its middle.
	if room := h - 4; len(lines) > room && room > 6 {
		const tail = 3
		head := room - tail - 1
		lines = slices.Concat(lines[:head], []string{fmt.Sprintf("  … %d more lines", len(lines)-head-tail)}, lines[len(lines)-tail:])
	}
	body := strings.Join(lines, "\n") + "\n\n" + m.styles.PaneTitleFocused.Render(question)
	return m.pane(a.title, body, w, h, true)
}
