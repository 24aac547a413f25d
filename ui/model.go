// Package ui is dossier's workbench: a Bubble Tea front-end to the same
// command engine the CLI drives. Update never does I/O; every engine
// operation, search, copy or file write is a command that reports back
// with a typed message.
package ui

import (
	"context"
	"fmt"
	"log"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/themes"
)

// focusArea is the pane keys go to first.
type focusArea int

const (
	focusList focusArea = iota
	focusPreview
	focusCommand
	focusSearch
	focusAssembled
	focusTree
	// focusConfirm is the dialog of an add that asks first (confirm.go).
	focusConfirm
)

// Options configure a workbench.
type Options struct {
	Root   string
	Engine *evidence.Engine
	Styles themes.Styles
	// Index, when set, brings the index up to date in the background and
	// keeps it current until ctx ends, reporting through ev; search works
	// on what exists meanwhile. It returns nil once ctx ends, or the error
	// that stopped it.
	Index func(ctx context.Context, ev IndexEvents) error
	// Search answers the overlay's queries.
	Search SearchFunc
	// Files lists the indexed files for the file tree pane.
	Files FilesFunc
	// Log receives internal errors (a recovered panic with its stack);
	// nil discards them. The terminal is never written to.
	Log *log.Logger
	// Ctx ends background indexing; nil is context.Background(). Run
	// ends it when the program ends.
	Ctx context.Context
	// Notice is shown on the status line at start (the ignored settings
	// of an untrusted workspace).
	Notice string
	// ConfirmSend has a send to an endpoint off this machine ask first,
	// showing the model, tokens and cost ([ui] confirm_send; confirm.go).
	ConfirmSend bool
	// Settings, when set, reads the send settings from ConfigFiles again:
	// the workbench calls it when one of them changed, so an edited [llm]
	// applies without a restart (settings.go). Engine.LLM and ConfirmSend
	// are what the files said at start.
	Settings    func() (SendSettings, error)
	ConfigFiles []string
}

// Model is the workbench's root model.
type Model struct {
	opts   Options
	keys   KeyMap
	styles themes.Styles
	run    *runner
	hl     *Highlighter // shared: Bubble Tea copies the model on every update
	help   help.Model
	spin   spinner.Model

	width, height int
	focus         focusArea
	snap          snapshot
	list          listPane
	preview       scroller
	assembled     scroller
	format        assemble.Format
	showHelp      bool
	showAssembled bool
	// output is the full answer of the last command that reports more
	// than a status line can hold (ask, status, deps, ...); it replaces
	// the preview until the next key.
	output string
	// fatal is a recovered panic; the program quits and Run reports it.
	fatal string

	cmd    cmdLine
	search searchOverlay
	ans    answerPane
	tree   treePane
	// ask is the add waiting for a yes or no (confirm.go), nil when none.
	ask *confirmAsk

	status    string
	statusErr bool
	// indexNote says, in the title, when the index is not kept current
	// by the workbench. (A byte beside statusErr: the Model, copied on
	// every update, stays within 64 KiB.)
	indexNote indexNote
	busy      int
	indexing  string
	// lastIndexStatus is the index's last notice on the status line,
	// which the next may replace (see indexStatus).
	lastIndexStatus string
	// indexGen counts the batches that changed the index, so open search
	// results can tell they are older than it.
	indexGen int
	bg       *background // the index's goroutine
	spinning bool        // a spinner tick is scheduled
	undo     []action
	redo     []action
	ready    bool
	// queue is the engine commands keys asked for, in order; the first is
	// under way (see queue.go).
	queue    []queued
	qseq     int
	quitting bool   // q was pressed with changes queued: quit once they are applied
	failed   string // a queued change that failed while others waited
}

// action is an engine command line, the one that undoes it, and what it
// does to the list (drawn before it is done, see queue.go).
type action struct {
	do, undo []string
	eff      effect
	seq      int // of the queued command that pushed it to history
	// learn, when set and undo is nil, is how the command learns its undo
	// as it runs (the text a `flow set request` replaces, the part an add
	// creates): its history entry is filled in when it is done.
	learn learnKind
	which string // learnText: request or policy
	from  string // learnText: the edited copy the text came from
}

// learnKind says how a command finds its undo while it runs.
type learnKind int

const (
	learnNone learnKind = iota
	learnText           // flow set request|policy: the old text back, or remove the part it made
	learnAdd            // evidence add: remove the part it made
)

// New builds the workbench.
func New(o Options) Model {
	m := Model{opts: o, keys: DefaultKeyMap(), styles: o.Styles, run: newRunner(o.Engine), hl: &Highlighter{}, bg: &background{},
		help: help.New(), spin: spinner.New(spinner.WithSpinner(spinner.MiniDot)), format: assemble.MDCtx}
	m.format = o.Engine.Format()
	m.run.settings, m.run.cfgFiles, m.run.confirm = o.Settings, o.ConfigFiles, o.ConfirmSend
	m.run.cfgPrint, m.run.cfgNotice = filesPrint(o.ConfigFiles), o.Notice
	m.cmd = newCmdLine()
	m.search = newSearchOverlay()
	m.ans = newAnswerPane()
	m.tree = newTreePane()
	m.help.Styles = o.Styles.HelpStyles()
	m.status, m.statusErr = o.Notice, o.Notice != ""
	return m
}

// Init loads the flow and starts indexing.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadCmd()}
	if m.opts.Index != nil {
		cmds = append(cmds, m.indexCmd())
	}
	return tea.Batch(cmds...)
}

// Messages.
type (
	snapMsg struct{ snap snapshot }
	execMsg struct {
		act  action
		out  string
		err  error
		snap snapshot
		kind execKind
		seq  int // the queued command it answers
		// learned is the undo a learning command found (see action.learn).
		learned []string
	}
)

// loadCmd reads the flow again when its directory changed; force reads it
// even when it did not (a source file may have, which marks parts stale).
func (m Model) loadCmd() tea.Cmd { return m.readCmd(false) }

func (m Model) readCmd(force bool) tea.Cmd {
	r, format := m.run, m.format
	return func() tea.Msg { return snapMsg{r.snapshot(format, force)} }
}

func (m Model) logf(format string, args ...any) {
	if m.opts.Log != nil {
		m.opts.Log.Printf(format, args...)
	}
}

// Fatal is the internal error the workbench quit on, or "".
func (m Model) Fatal() string { return m.fatal }

// execKind says which history stack a successful command goes to.
type execKind int

const (
	execNew  execKind = iota // a new action: push to undo, forget redo
	execUndo                 // push to redo
	execRedo                 // push to undo, keep redo
)

// Update routes a message: results first, then keys by focus, with a
// focused text input seeing keys before any global binding. Whatever the
// message, the selection's code is then lexed in the background if the
// preview would otherwise draw it plain.
func (m Model) Update(msg tea.Msg) (result tea.Model, cmd tea.Cmd) {
	defer func() {
		if p := recover(); p != nil {
			m.logf("panic in Update(%T): %v\n%s", msg, p, debug.Stack())
			m.fatal = fmt.Sprintf("internal error: %v", p)
			result, cmd = m, tea.Quit
		}
	}()
	next, cmd := m.update(msg)
	nm := next.(Model)
	if !nm.spinning && (nm.busy > 0 || nm.indexing != "" || nm.ans.live != nil) {
		nm.spinning = true
		cmd = tea.Batch(cmd, nm.spin.Tick)
	}
	if _, ok := msg.(preparedMsg); ok {
		return nm, cmd
	}
	if p := nm.prepareCmd(); p != nil {
		return nm, tea.Batch(cmd, p)
	}
	return nm, cmd
}

func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.cmd.input.Width = max(10, msg.Width-3)
		m.search.input.Width = max(10, msg.Width-12)
		m.clamp()
		return m, m.resizeAnswer()
	case snapMsg:
		return m, m.takeSnapshot(msg.snap)
	case execMsg:
		return m.handleExec(msg)
	case spinner.TickMsg:
		// The spinner runs only while something is under way, so an idle
		// workbench draws nothing.
		if m.busy == 0 && m.indexing == "" && m.ans.live == nil {
			m.spinning = false
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case indexMsg:
		return m.handleIndex(msg)
	case completedMsg:
		return m.applyCompletion(msg)
	case flowChangedMsg:
		if m.ans.open { // a turn kept by `dossier send` in another shell, or an answer edited
			return m, tea.Batch(m.loadCmd(), m.turnsCmd())
		}
		return m, m.loadCmd()
	case configChangedMsg:
		return m, m.settingsCmd()
	case settingsMsg:
		return m.handleSettings(msg)
	case searchResultMsg, searchTickMsg:
		return m.updateSearch(msg)
	case treeMsg:
		return m.takeTree(msg)
	case treeCountMsg:
		return m.takeCounts(msg)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case editReadyMsg, editedMsg, editTextMsg, sendReadyMsg, streamMsg, streamDoneMsg, turnsMsg, renderedMsg, refsMsg, copiedMsg:
		return m.updateAnswer(msg)
	case tea.KeyMsg:
		return m.handleKeys(msg)
	}
	return m, nil
}

// handleExec takes an engine command's answer; the history it leaves was
// recorded when it was queued (execCmd).
func (m Model) handleExec(msg execMsg) (tea.Model, tea.Cmd) {
	m.busy = max(0, m.busy-1)
	next, dropped := m.finish(msg)
	cmd := tea.Batch(m.takeSnapshot(msg.snap), next)
	if m.asks(msg) {
		return m, cmd
	}
	if msg.err != nil {
		m.status, m.statusErr = firstLine(msg.err.Error()), true
		if dropped > 0 {
			m.status += fmt.Sprintf(" (%d later change%s not applied)", dropped, plural(dropped))
		}
		if m.quitting {
			m.quitting = false
			m.status += "; not quitting: q to quit"
		}
		if m.ans.waiting != nil {
			// The flow is not what the screen showed when S was typed.
			m.ans.waiting = nil
			m.status += "; not sent: S to send"
		}
		m.failed = ""
		if len(m.queue) > 0 {
			m.failed = m.status // the changes after it must not hide it
		}
		return m, cmd
	}
	m.status, m.statusErr = summary(msg.out), false
	m.learnUndo(msg)
	if m.failed != "" {
		m.status, m.statusErr = m.failed+" · then: "+m.status, true
		if len(m.queue) == 0 {
			m.failed = ""
		}
	}
	if reports(msg.act.do) || warnsOfSecrets(msg.out) {
		m.output = strings.TrimRight(msg.out, "\n")
	}
	if m.quitting && len(m.queue) == 0 {
		return m, tea.Quit
	}
	if f := m.ans.waiting; f != nil && len(m.queue) == 0 {
		m.ans.waiting = nil
		next, send := m.send(*f)
		return next, tea.Batch(cmd, send)
	}
	return m, cmd
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// takeSnapshot adopts a snapshot unless a newer one is already shown; a
// snapshot of another format than the current one asks for a fresh one,
// and a different flow drops the undo history, which names its parts.
func (m *Model) takeSnapshot(s snapshot) tea.Cmd {
	if s.Version < m.snap.Version {
		return nil
	}
	if s.FlowID != m.snap.FlowID && m.snap.FlowID != "" {
		m.undo, m.redo = nil, nil
		m.otherFlow()
	}
	m.snap, m.ready = s, true
	m.snap.Rows = m.withPending(s.Rows)
	m.clamp()
	recount := m.treeRecount()
	if s.Format != m.format {
		return tea.Batch(m.loadCmd(), recount)
	}
	return recount
}

// mutates says whether a command line may change the flow.
func mutates(words []string) bool {
	if len(words) < 2 {
		return false
	}
	switch words[0] {
	case "evidence":
		return !slices.Contains([]string{"status", "plan", "deps"}, words[1]) && !(words[1] == "budget" && len(words) == 2)
	case "flow":
		return words[1] != "list" && words[1] != "show"
	}
	return false
}

func (m Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	if m.ans.preparing {
		m.ans.typed = true
	}
	switch m.focus {
	case focusCommand:
		return m.updateCmdLine(msg)
	case focusSearch:
		return m.updateSearch(msg)
	case focusTree:
		return m.treeKey(msg)
	case focusConfirm:
		return m.confirmKey(msg)
	}
	if m.showHelp {
		m.showHelp = false
		return m, nil
	}
	if m.output != "" {
		m.output = "" // any key closes the answer, and does nothing else
		return m, nil
	}
	if m.ans.open {
		if next, cmd, ok := m.handleAnswerKey(msg); ok {
			return next, cmd
		}
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Edit):
		return m.editSelected()
	case key.Matches(msg, k.Send):
		return m.send("")
	case key.Matches(msg, k.Answer):
		return m.openAnswer()
	case key.Matches(msg, k.Help):
		m.showHelp = true
	case key.Matches(msg, k.Command):
		m.focus = focusCommand
		m.cmd.open("")
	case key.Matches(msg, k.Search):
		m.focus = focusSearch
		m.search.open()
		again := m.searchAgain()
		return m, again
	case key.Matches(msg, k.Tree):
		return m.openTree()
	case key.Matches(msg, k.NextPane):
		m.nextPane()
	case key.Matches(msg, k.Assembled):
		m = m.toggleAssembled()
	case key.Matches(msg, k.Format):
		return m.cycleFormat()
	case key.Matches(msg, k.Copy):
		return m.runWords([]string{"assemble", "--copy", "--format", string(m.format)}, nil)
	case key.Matches(msg, k.Export):
		m.focus = focusCommand
		m.cmd.open("/export ")
	case key.Matches(msg, k.Reload):
		return m, m.readCmd(true)
	case key.Matches(msg, k.Undo):
		return m.undoLast()
	case key.Matches(msg, k.Redo):
		return m.redoLast()
	default:
		return m.handlePaneKey(msg)
	}
	return m, nil
}

// handlePaneKey moves within the focused pane or acts on the selection.
func (m Model) handlePaneKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	if m.focus == focusPreview || m.focus == focusAssembled {
		pane := &m.preview
		if m.focus == focusAssembled {
			pane = &m.assembled
		}
		d, page := 0, m.bodyHeight()/2
		switch {
		case key.Matches(msg, k.Down):
			d = 1
		case key.Matches(msg, k.Up):
			d = -1
		case key.Matches(msg, k.PageDown):
			d = page
		case key.Matches(msg, k.PageUp):
			d = -page
		case key.Matches(msg, k.Top):
			d = -pane.top
		case key.Matches(msg, k.Bottom):
			d = 1 << 30
		default:
			// The list stays on screen beside the text, its selection
			// marked: keys that act on the selected part still do.
			return m.actOnSelected(msg)
		}
		pane.scroll(d, m.scrollLimit())
		return m, nil
	}
	switch {
	case key.Matches(msg, k.Down):
		m.move(1)
	case key.Matches(msg, k.Up):
		m.move(-1)
	case key.Matches(msg, k.PageDown):
		m.move(m.bodyHeight() / 2)
	case key.Matches(msg, k.PageUp):
		m.move(-m.bodyHeight() / 2)
	case key.Matches(msg, k.Top):
		m.move(-len(m.snap.Rows))
	case key.Matches(msg, k.Bottom):
		m.move(len(m.snap.Rows))
	default:
		return m.actOnSelected(msg)
	}
	return m, nil
}

// actOnSelected handles the keys that change the selected part.
func (m Model) actOnSelected(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Toggle):
		return m.toggleSelected()
	case key.Matches(msg, k.Pin):
		return m.pinSelected()
	case key.Matches(msg, k.RankUp):
		return m.moveRank(-1)
	case key.Matches(msg, k.RankDown):
		return m.moveRank(1)
	case key.Matches(msg, k.Remove):
		return m.removeSelected()
	case key.Matches(msg, k.Focus):
		if m.snap.Focus != "" {
			return m.runWords([]string{"evidence", "focus", "off"}, []string{"evidence", "focus", m.snap.Focus})
		}
		m.focus = focusCommand
		m.cmd.open("/evidence focus ")
	}
	return m, nil
}

// scrollLimit is the last useful first line of the focused text pane.
func (m Model) scrollLimit() int { return m.limitOf(m.focus == focusPreview) }

// limitOf is the last useful first line of the preview or the assembled
// prompt.
func (m Model) limitOf(preview bool) int {
	text, visible := m.snap.Text, m.bodyHeight()-2
	if preview {
		if r, ok := m.selected(); ok {
			text = r.Code
		}
		visible = m.bodyHeight() - meterRows - 2
	}
	return max(0, strings.Count(text, "\n")+1-visible)
}

// fitted says whether `evidence fit` has lowered any part.
func (m Model) fitted() bool {
	for _, r := range m.snap.Rows {
		if r.Detail != "" {
			return true
		}
	}
	return false
}

// toggleAssembled shows or hides the assembled prompt, focused.
func (m Model) toggleAssembled() Model {
	m.showAssembled = !m.showAssembled
	m.assembled.top = 0
	m.focus = focusList
	if m.showAssembled {
		m.focus = focusAssembled
	}
	return m
}

func (m *Model) nextPane() {
	switch m.focus {
	case focusList:
		m.focus = focusPreview
		if m.showAssembled {
			m.focus = focusAssembled
		}
	default:
		m.focus = focusList
	}
}

func (m *Model) move(d int) {
	m.list.move(d, len(m.snap.Rows), m.listHeight())
	m.preview.top = 0
}

// clamp keeps the cursor on a row and the row on screen.
func (m *Model) clamp() { m.list.clamp(len(m.snap.Rows), m.listHeight()) }

func (m Model) selected() (row, bool) { return m.list.at(m.snap.Rows) }

func (m Model) handleMouse(msg tea.MouseMsg) (tea.Model, tea.Cmd) {
	if msg.Action != tea.MouseActionPress {
		return m, nil
	}
	d := 0
	switch msg.Button {
	case tea.MouseButtonWheelUp:
		d = -3
	case tea.MouseButtonWheelDown:
		d = 3
	default:
		return m, nil
	}
	switch {
	case m.ans.open:
		m.scrollAnswer(d)
	case m.showAssembled:
		m.assembled.scroll(d, m.limitOf(false))
	case msg.X > m.listWidth():
		m.preview.scroll(d, m.limitOf(true))
	default:
		m.move(d)
	}
	return m, nil
}

// reports tells the commands whose whole output is the point: their answer
// is shown in a pane, not just on the status line.
func reports(words []string) bool {
	if len(words) == 0 {
		return false
	}
	switch words[0] {
	case "ask", "env":
		return true
	case "evidence":
		// Not focus: the list shows what it changed.
		return len(words) > 1 && slices.Contains([]string{"status", "plan", "budget", "deps", "fit", "gather", "from-output", "refresh", "rebase"}, words[1])
	case "flow":
		return len(words) > 1 && (words[1] == "list" || words[1] == "show")
	}
	return false
}

// warnsOfSecrets says whether a command's output warns of secrets (a copy
// or export that redacted some, an add of a part holding one): the whole
// warning is shown, since the status line has room for a fraction of it.
func warnsOfSecrets(out string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "! secret in ") {
			return true
		}
	}
	return false
}

// summary is the line the status bar keeps from a command's output: the
// first "✓" line (what happened), the budget line, and the first warning.
func summary(out string) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var done, budget, warn string
	for _, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case done == "" && strings.HasPrefix(l, "✓"):
			done = l
		case budget == "" && strings.HasPrefix(l, "Budget:"):
			budget = l
		case warn == "" && strings.HasPrefix(l, "!"):
			warn = l
		}
	}
	if done == "" && len(lines) > 0 {
		done = strings.TrimSpace(lines[0])
	}
	out = done
	for _, s := range []string{budget, warn} {
		if s != "" && s != done {
			out += " · " + s
		}
	}
	return out
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
