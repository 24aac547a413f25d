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
)

// An `:evidence add` of a folder or glob of more than a handful of files
// asks first, as the CLI does on a terminal: the engine writes its preview
// (each file's tokens, the total against the budget, full text or
// outlines) and refuses without a yes (evidence.ConfirmError); the
// workbench shows that preview in a dialog, and y runs the same command
// line again with --yes. The preview and the add are the engine's; only
// the question is the workbench's.

// confirmAsk is the add waiting for an answer.
type confirmAsk struct {
	// words add the files when the answer is yes.
	words   []string
	preview string
	files   int
	// back is where the keys went before the dialog opened.
	back focusArea
}

// asks opens the dialog when msg is an add that wants a yes, and reports
// whether it did.
func (m *Model) asks(msg execMsg) bool {
	var ce *evidence.ConfirmError
	if !errors.As(msg.err, &ce) || m.ask != nil || len(msg.act.do) < 2 || msg.act.do[1] != "add" {
		return false
	}
	back := m.focus
	if back == focusConfirm || back == focusCommand {
		back = focusList
	}
	// --yes right after "add": after a "--" it would be read as a path
	words := append(append(slices.Clone(msg.act.do[:2]), "--yes"), msg.act.do[2:]...)
	m.ask = &confirmAsk{words: words, preview: strings.TrimRight(msg.out, "\n"),
		files: ce.Files, back: back}
	m.focus = focusConfirm
	m.status, m.statusErr = fmt.Sprintf("add %d files? %s yes, %s no", ce.Files, m.keys.Yes.Help().Key, m.keys.No.Help().Key), false
	return true
}

// confirmKey answers the dialog: yes adds, no or esc does not, any other
// key is ignored (the dialog stays).
func (m Model) confirmKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	a := m.ask
	if a == nil {
		m.focus = focusList
		return m, nil
	}
	switch {
	case key.Matches(msg, m.keys.Yes):
		m.ask, m.focus = nil, a.back
		return m.runWords(a.words, nil)
	case key.Matches(msg, m.keys.No), key.Matches(msg, m.keys.Cancel):
		m.ask, m.focus = nil, a.back
		m.status, m.statusErr = fmt.Sprintf("nothing added (%d files not confirmed)", a.files), false
	}
	return m, nil
}

// confirmView is the dialog: the engine's preview and the question.
func (m Model) confirmView(w, h int) string {
	a := m.ask
	if a == nil {
		return m.pane("", "", w, h, true)
	}
	question := fmt.Sprintf("Add these %d files? %s yes · %s no", a.files, m.keys.Yes.Help().Key, m.keys.No.Help().Key)
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
	return m.pane(fmt.Sprintf("evidence add: %d files", a.files), body, w, h, true)
}
