package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"github.com/dossierhq/dossier/assemble/clip"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/ui/termsafe"
)

// answerPane is the answer of a send and the flow's earlier turns. Its
// maps are filled by messages only; the View reads them.
type answerPane struct {
	open   bool
	turns  []evidence.Turn
	cur    int // index of the turn shown; len(turns): the live or failed answer
	top    int
	follow bool // stay at the end while the answer streams in

	live      *stream
	preparing bool // a send's request is being prepared
	// typed: a key arrived while it was; a send that must ask is then
	// dropped, so the y of a word typed after S cannot confirm it.
	typed   bool
	wasOpen bool // the pane was open before the send: a send not confirmed leaves it so
	// waiting is a send asked for while changes were queued: it goes
	// once they are applied (its follow-up; nil when none waits).
	waiting *string
	text    *liveText // the answer streaming in, or the one that failed
	failed  string    // why the last send failed
	asked   string    // what the live send asks ("" the flow's request)
	nextID  int

	md      map[mdKey][]string // glamour's rendering of a turn at a width
	pending map[mdKey]bool
	plain   map[mdKey][]string
	refs    map[int][]evidence.AnswerRef // by turn number
}

type mdKey struct{ n, width int }

func newAnswerPane() answerPane {
	return answerPane{md: map[mdKey][]string{}, pending: map[mdKey]bool{}, plain: map[mdKey][]string{}, refs: map[int][]evidence.AnswerRef{}}
}

type (
	sendReadyMsg struct {
		out  *evidence.Outgoing
		send func(context.Context, *evidence.Outgoing, func(string)) (evidence.Turn, error)
		// ask: the request waits for a yes (confirm.go).
		ask bool
		err error
	}
	turnsMsg struct {
		turns []evidence.Turn
		err   error
	}
	renderedMsg struct {
		key   mdKey
		text  string
		lines []string
	}
	refsMsg struct {
		n    int
		refs []evidence.AnswerRef
		err  error
	}
	copiedMsg struct {
		what, where string
		err         error
	}
)

// maxRefs is how many references the pane lists: one digit key each.
const maxRefs = 9

// answerWidth is the width answers are wrapped and rendered at.
func (m Model) answerWidth() int { return max(10, m.width-2) }

// send starts a send: the flow's request ("") or a follow-up. The flow is
// prepared under the engine's lock; the answer then streams in without it.
func (m Model) send(followUp string) (tea.Model, tea.Cmd) {
	switch {
	case m.ans.live != nil:
		m.status, m.statusErr = "an answer is still streaming: esc cancels it", false
		return m, nil
	case m.ans.preparing || m.ans.waiting != nil:
		return m, nil // a second S of a burst: one send is on its way
	case len(m.queue) > 0:
		// The request must be the flow the screen shows: a toggle still
		// queued would otherwise go out as it was before. The send goes
		// once the changes are applied (handleExec).
		m.ans.waiting = &followUp
		m.status, m.statusErr = fmt.Sprintf("sending once %d change(s) are applied …", len(m.queue)), false
		return m, nil
	}
	m.ans.wasOpen = m.ans.open
	m.ans.open, m.ans.failed, m.ans.preparing, m.ans.typed = true, "", true, false
	m.ans.asked = followUp
	m.status, m.statusErr = "preparing the request …", false
	r := m.run
	o := evidence.SendOptions{FollowUp: followUp}
	return m, func() tea.Msg {
		out, send, ask, err := r.prepareSend(o)
		return sendReadyMsg{out: out, send: send, ask: ask, err: err}
	}
}

// handleSendReady sends the prepared request, or asks first.
func (m Model) handleSendReady(msg sendReadyMsg) (tea.Model, tea.Cmd) {
	m.ans.preparing = false
	switch {
	case msg.err != nil:
		m.status, m.statusErr = firstLine(msg.err.Error()), true
		return m, nil
	case msg.ask && m.ans.typed:
		m.ans.open = m.ans.wasOpen
		m.status, m.statusErr = fmt.Sprintf("not sent: keys were typed after S (turn %d to %s); S alone asks", msg.out.N, termsafe.Line(msg.out.Model)), true
		return m, nil
	case msg.ask && m.ask != nil:
		// Another question is open (an add typed right after S).
		m.ans.open = m.ans.wasOpen
		m.status, m.statusErr = "not sent: answer the open question first, then S again", true
		return m, nil
	case m.asksToSend(msg):
		return m, nil
	}
	return m.startSend(msg)
}

// startSend posts the prepared request and streams its answer in.
func (m Model) startSend(msg sendReadyMsg) (tea.Model, tea.Cmd) {
	m.ans.nextID++
	out := msg.out
	s := newStream(m.ans.nextID)
	m.ans.live, m.ans.text, m.ans.cur, m.ans.top, m.ans.follow = s, newLiveText(m.answerWidth()), len(m.ans.turns), 0, true
	m.status, m.statusErr = fmt.Sprintf("sending turn %d: %s tokens to %s (%s) …", out.N, evidence.Thousands(out.Tokens), out.Model, out.Endpoint), false
	return m, s.start(func(ctx context.Context, delta func(string)) (evidence.Turn, error) { return msg.send(ctx, out, delta) })
}

func (m Model) handleStream(msg streamMsg) (tea.Model, tea.Cmd) {
	if msg.s != m.ans.live {
		return m, nil
	}
	m.ans.text.append(msg.text)
	m.followEnd()
	return m, msg.s.read
}

func (m Model) handleStreamDone(msg streamDoneMsg) (tea.Model, tea.Cmd) {
	if msg.s != m.ans.live {
		return m, nil
	}
	m.ans.live = nil
	m.ans.text.append(msg.rest)
	m.followEnd()
	t, err := msg.turn, msg.err
	switch {
	case evidence.Cancelled(err) && t.N == 0:
		m.status, m.statusErr = "cancelled before any answer arrived: nothing kept", false
		return m, m.turnsCmd()
	case errors.Is(err, context.Canceled):
		m.status, m.statusErr = fmt.Sprintf("cancelled: the partial answer is kept as turn %d, marked incomplete", t.N), false
	case err != nil && t.N == 0:
		m.ans.failed = firstLine(err.Error())
		m.status, m.statusErr = m.ans.failed+" (the flow is as it was)", true
		return m, nil
	case err != nil:
		m.status, m.statusErr = firstLine(err.Error()), true
	case t.Status != "completed":
		m.status, m.statusErr = fmt.Sprintf("turn %d is incomplete: %s", t.N, t.Reason), false
	default:
		m.status, m.statusErr = "✓ turn "+fmt.Sprint(t.N)+": "+turnFigures(t), false
	}
	// The streamed lines stand in until the Markdown is rendered.
	m.ans.plain[mdKey{t.N, m.answerWidth()}] = m.ans.text.lines
	return m, m.turnsCmd()
}

// cancelSend stops the stream; Send keeps what arrived.
func (m Model) cancelSend() (tea.Model, tea.Cmd) {
	if m.ans.live != nil {
		m.ans.live.cancel()
		m.status, m.statusErr = "cancelling …", false
	}
	return m, nil
}

func (m Model) turnsCmd() tea.Cmd {
	r := m.run
	return func() tea.Msg {
		ts, err := r.turns()
		return turnsMsg{ts, err}
	}
}

// openAnswer shows the pane with the last turn.
func (m Model) openAnswer() (tea.Model, tea.Cmd) {
	m.ans.open = true
	return m, m.turnsCmd()
}

func (m Model) handleTurns(msg turnsMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		m.status, m.statusErr = firstLine(msg.err.Error()), true
	}
	old := map[int]string{}
	for _, t := range m.ans.turns {
		old[t.N] = t.Text
	}
	showLast := m.ans.live == nil && (m.ans.cur >= len(m.ans.turns)-1 || m.ans.text != nil)
	m.ans.turns = msg.turns
	for _, t := range msg.turns {
		if prev, ok := old[t.N]; ok && prev != t.Text { // edited by hand meanwhile
			m.forget(t.N)
		}
	}
	if m.ans.live == nil && m.ans.failed == "" {
		m.ans.text = nil
	}
	if showLast {
		m.ans.cur = max(0, len(m.ans.turns)-1)
		if m.ans.failed != "" {
			m.ans.cur = len(m.ans.turns)
		}
	}
	m.ans.cur = min(m.ans.cur, len(m.ans.turns))
	if len(m.ans.turns) == 0 && m.ans.text == nil {
		m.status, m.statusErr = "no turns yet: S sends the flow (the request: /request TEXT)", false
	}
	return m, m.prepareTurn()
}

func (m *Model) forget(n int) {
	for k := range m.ans.md {
		if k.n == n {
			delete(m.ans.md, k)
			delete(m.ans.plain, k)
		}
	}
	delete(m.ans.refs, n)
}

// shownTurn is the turn on screen, or false for the live (or failed) one.
func (m Model) shownTurn() (evidence.Turn, bool) {
	if m.ans.cur >= 0 && m.ans.cur < len(m.ans.turns) {
		return m.ans.turns[m.ans.cur], true
	}
	return evidence.Turn{}, false
}

// prepareTurn wraps the shown turn for the screen at once and asks for
// its Markdown rendering and its references in the background.
func (m *Model) prepareTurn() tea.Cmd {
	t, ok := m.shownTurn()
	if !ok {
		return nil
	}
	k := mdKey{t.N, m.answerWidth()}
	if _, ok := m.ans.plain[k]; !ok {
		m.ans.plain[k] = wrapText(t.Text, k.width)
	}
	var cmds []tea.Cmd
	if _, ok := m.ans.md[k]; !ok && !m.ans.pending[k] {
		m.ans.pending[k] = true
		text := t.Text
		style, profile := m.mdStyle()
		cmds = append(cmds, func() tea.Msg {
			return renderedMsg{key: k, text: text, lines: renderMarkdown(text, k.width, style, profile)}
		})
	}
	if _, ok := m.ans.refs[t.N]; !ok {
		r, n, text := m.run, t.N, t.Text
		cmds = append(cmds, func() tea.Msg {
			refs, err := r.answerRefs(text)
			return refsMsg{n: n, refs: refs, err: err}
		})
	}
	return tea.Batch(cmds...)
}

func (m Model) mdStyle() (string, termenv.Profile) {
	st := m.styles
	if st.Renderer == nil || st.NoColor {
		return "ascii", termenv.Ascii
	}
	p := st.Renderer.ColorProfile()
	return glamourStyle(p, st.Renderer.HasDarkBackground()), p
}

func (m Model) handleRendered(msg renderedMsg) (tea.Model, tea.Cmd) {
	delete(m.ans.pending, msg.key)
	for _, t := range m.ans.turns {
		if t.N == msg.key.n && t.Text == msg.text {
			m.ans.md[msg.key] = msg.lines
		}
	}
	return m, nil
}

func (m Model) handleRefs(msg refsMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		m.status, m.statusErr = "references: "+firstLine(msg.err.Error()), true
	}
	if len(msg.refs) > maxRefs {
		msg.refs = msg.refs[:maxRefs]
	}
	m.ans.refs[msg.n] = msg.refs
	return m, nil
}

// answerLines are the lines of what the pane shows now.
func (m Model) answerLines() []string {
	if t, ok := m.shownTurn(); ok {
		k := mdKey{t.N, m.answerWidth()}
		if l, ok := m.ans.md[k]; ok {
			return l
		}
		return m.ans.plain[k]
	}
	if m.ans.text != nil {
		return m.ans.text.lines
	}
	return nil
}

// answerBodyHeight is the rows of answer text on screen.
func (m Model) answerBodyHeight() int {
	return max(1, m.bodyHeight()-2-m.refRows())
}

func (m Model) refRows() int {
	t, ok := m.shownTurn()
	if !ok || len(m.ans.refs[t.N]) == 0 {
		return 0
	}
	return min(len(m.ans.refs[t.N])+1, m.bodyHeight()/3)
}

func (m *Model) followEnd() {
	if m.ans.follow {
		m.ans.top = max(0, len(m.answerLines())-m.answerBodyHeight())
	}
}

func (m *Model) scrollAnswer(d int) {
	limit := max(0, len(m.answerLines())-m.answerBodyHeight())
	m.ans.top = max(0, min(m.ans.top+d, limit))
	m.ans.follow = m.ans.top == limit
}

// handleAnswerKey takes the keys of the answer pane; ok is false for the
// keys that keep their meaning everywhere (quit, help, the command line,
// search, edit, send, undo), which the caller handles.
func (m Model) handleAnswerKey(msg tea.KeyMsg) (tea.Model, tea.Cmd, bool) {
	k := m.keys
	page := m.answerBodyHeight() / 2
	switch {
	case key.Matches(msg, k.StopSend):
		if m.ans.live != nil {
			next, cmd := m.cancelSend()
			return next, cmd, true
		}
		m.ans.open = false
	case key.Matches(msg, k.NextPane):
		m.ans.open = false
	case key.Matches(msg, k.Down):
		m.scrollAnswer(1)
	case key.Matches(msg, k.Up):
		m.scrollAnswer(-1)
	case key.Matches(msg, k.PageDown):
		m.scrollAnswer(page)
	case key.Matches(msg, k.PageUp):
		m.scrollAnswer(-page)
	case key.Matches(msg, k.Top):
		m.scrollAnswer(-m.ans.top)
	case key.Matches(msg, k.Bottom):
		m.scrollAnswer(1 << 30)
	case key.Matches(msg, k.PrevTurn), key.Matches(msg, k.NextTurn):
		d := 1
		if key.Matches(msg, k.PrevTurn) {
			d = -1
		}
		last := len(m.ans.turns) - 1
		if m.ans.text != nil {
			last++ // the live or failed answer after the kept turns
		}
		m.ans.cur = max(0, min(m.ans.cur+d, last))
		m.ans.top, m.ans.follow = 0, false
		return m, m.prepareTurn(), true
	case key.Matches(msg, k.CopyAnswer):
		next, cmd := m.copyAnswer()
		return next, cmd, true
	case key.Matches(msg, k.FollowUp):
		m.focus = focusCommand
		m.cmd.open("/followup ")
	case key.Matches(msg, k.AddRef):
		next, cmd := m.addRef(int(msg.Runes[0] - '1'))
		return next, cmd, true
	case key.Matches(msg, k.Quit, k.Help, k.Command, k.Search, k.Edit, k.Send, k.Undo, k.Redo, k.Reload, k.Answer):
		return m, nil, false
	}
	return m, nil, true
}

// copyAnswer copies the shown answer the way y copies the prompt.
func (m Model) copyAnswer() (tea.Model, tea.Cmd) {
	text, what := "", ""
	if t, ok := m.shownTurn(); ok {
		text, what = t.Text, fmt.Sprintf("turn %d's answer", t.N)
	} else if m.ans.text != nil {
		text, what = m.ans.text.String(), "the answer so far"
	}
	if text == "" {
		m.status, m.statusErr = "no answer to copy", false
		return m, nil
	}
	file := filepath.Join(m.snap.Dir, "build", "answer.txt")
	getenv := m.opts.Engine.Getenv
	m.status, m.statusErr = "copying "+what+" …", false
	return m, func() tea.Msg {
		o := clip.Options{Method: "auto", File: file, Getenv: getenv}
		if tty, err := clip.OpenTTY(); err == nil {
			defer tty.Close()
			o.TTY = tty
		}
		rep, err := clip.Copy(context.Background(), []byte(text), o)
		where := rep.Method
		if rep.Method == "file" {
			where = "file " + rep.Path + " (no clipboard reachable)"
		}
		return copiedMsg{what: what, where: where, err: err}
	}
}

func (m Model) handleCopied(msg copiedMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		m.status, m.statusErr = msg.what+" was not copied: "+firstLine(msg.err.Error()), true
	} else {
		m.status, m.statusErr = fmt.Sprintf("✓ Copied %s via %s", msg.what, msg.where), false
	}
	return m, nil
}

// addRef adds reference i of the shown turn as evidence, undoably.
func (m Model) addRef(i int) (tea.Model, tea.Cmd) {
	t, ok := m.shownTurn()
	refs := m.ans.refs[t.N]
	if !ok || i < 0 || i >= len(refs) {
		m.status, m.statusErr = "no reference with that number", false
		return m, nil
	}
	r := refs[i]
	if by, ok := m.snap.Coverage.Covering(r.Path, r.Start, r.End); ok {
		m.status, m.statusErr = r.Selector+" is already in the flow as "+by.ID, false
		return m, nil
	}
	words := []string{"evidence", "add", r.Selector, "--via", fmt.Sprintf("answer:turn %d", t.N)}
	m.status, m.statusErr = strings.Join(words, " ")+" …", false
	return m, m.addCmd(words)
}

// turnFigures is a turn's model, tokens, cost and time in one line.
func turnFigures(t evidence.Turn) string {
	parts := []string{orDash(t.Model)}
	if t.HasUsage {
		parts = append(parts, evidence.Thousands(t.Usage.Input)+" in · "+evidence.Thousands(t.Usage.Output)+" out")
	}
	if t.HasCost {
		parts = append(parts, evidence.Dollars(t.Cost))
	}
	if t.Seconds > 0 {
		parts = append(parts, fmt.Sprintf("%.1fs", t.Seconds))
	}
	if t.Status != "" && t.Status != "completed" {
		s := t.Status
		if t.Reason != "" {
			s += " (" + t.Reason + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// answerView draws the pane: a title with the turn's figures, the answer
// and the references it mentions.
func (m Model) answerView(w, h int) string {
	lines := m.answerLines()
	bodyH := m.answerBodyHeight()
	top := min(m.ans.top, max(0, len(lines)-bodyH))
	end := min(len(lines), top+bodyH)
	shown := append([]string(nil), lines[top:end]...)
	for len(shown) < bodyH {
		shown = append(shown, "")
	}
	var title string
	t, kept := m.shownTurn()
	switch {
	case kept:
		title = fmt.Sprintf("Answer · turn %d of %d · %s", t.N, len(m.ans.turns), turnFigures(t))
		if _, ok := m.ans.md[mdKey{t.N, m.answerWidth()}]; !ok {
			title += " · rendering …"
		}
	case m.ans.live != nil:
		title = fmt.Sprintf("%s Answer · streaming · %s chars · esc cancels", m.spin.View(), evidence.Thousands(len(m.ans.text.String())))
	case m.ans.failed != "":
		title = "Answer · failed: " + m.ans.failed
	default:
		title = "Answer · no turns yet: S sends the flow"
	}
	if len(lines) > bodyH {
		title += fmt.Sprintf(" · %d-%d/%d", top+1, end, len(lines))
	}
	if kept && len(m.ans.turns) > 1 {
		title += " · [ ] turns"
	}
	if n := m.refRows(); n > 0 {
		shown = append(shown, m.styles.Help.Render(fit("References (1-9 adds one as evidence):", w-2)))
		for i, r := range m.ans.refs[t.N][:n-1] {
			mark := ""
			if by, ok := m.snap.Coverage.Covering(r.Path, r.Start, r.End); ok {
				mark = "  (in the flow as " + by.ID + ")"
			}
			shown = append(shown, fmt.Sprintf("%d %s%s", i+1, termsafe.Line(r.Selector), mark))
		}
	}
	return m.pane(termsafe.Line(title), strings.Join(shown, "\n"), w, h, true)
}
