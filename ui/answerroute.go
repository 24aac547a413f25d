package ui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// updateAnswer routes the messages of the editor and the answer pane.
func (m Model) updateAnswer(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case editReadyMsg:
		return m.handleEditReady(msg)
	case editedMsg:
		return m.handleEdited(msg)
	case editTextMsg:
		return m.handleEditText(msg)
	case sendReadyMsg:
		return m.handleSendReady(msg)
	case streamMsg:
		return m.handleStream(msg)
	case streamDoneMsg:
		return m.handleStreamDone(msg)
	case turnsMsg:
		return m.handleTurns(msg)
	case renderedMsg:
		return m.handleRendered(msg)
	case refsMsg:
		return m.handleRefs(msg)
	case copiedMsg:
		return m.handleCopied(msg)
	}
	return m, nil
}

// runAnswerWord runs the command-line words of the editor and the answer
// pane: /request [TEXT], /policy [TEXT], /edit, /send [TEXT],
// /followup TEXT, /turns.
func (m Model) runAnswerWord(words []string) (tea.Model, tea.Cmd) {
	text := strings.Join(words[1:], " ")
	switch words[0] {
	case "request", "policy":
		return m.setText(words)
	case "edit":
		return m.editSelected()
	case "send":
		return m.send(text)
	case "followup":
		if strings.TrimSpace(text) == "" {
			m.status, m.statusErr = "usage: /followup TEXT (what to ask next; /send sends the flow's request)", true
			return m, nil
		}
		return m.send(text)
	}
	return m.openAnswer()
}

// resizeAnswer wraps the answer again for a new width.
func (m *Model) resizeAnswer() tea.Cmd {
	if m.ans.text != nil {
		m.ans.text.resize(m.answerWidth())
	}
	if !m.ans.open {
		return nil
	}
	m.followEnd()
	return m.prepareTurn()
}

// otherFlow forgets the turns of the flow the workbench left, and closes
// the pane (A opens it on the new flow's); an answer still streaming
// belongs to the old flow and stays.
func (m *Model) otherFlow() {
	if m.ans.live != nil {
		return
	}
	m.ans = newAnswerPane()
}

// StopSend cancels an answer still streaming when the workbench quits and
// waits until the engine has kept what arrived (an incomplete turn).
func (m Model) StopSend() {
	if s := m.ans.live; s != nil {
		s.cancel()
		<-s.done
	}
}
