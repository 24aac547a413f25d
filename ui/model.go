// Package ui is dossier's workbench: a Bubble Tea front-end to the same
// command engine the CLI drives. Update never does I/O; every engine
// operation, search, copy or file write is a command that reports back
// with a typed message.
package ui

import (
	"context"
	"fmt"
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
)

// Options configure a workbench.
type Options struct {
	Root   string
	Engine *evidence.Engine
	Styles themes.Styles
	// Index, when set, brings the index up to date in the background and
	// reports progress; search works on what exists meanwhile.
	Index func(ctx context.Context, progress func(done, total int)) error
	// Search answers the overlay's queries.
	Search SearchFunc
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
	cursor        int
	top           int // first visible row of the list
	previewTop    int
	assembledTop  int
	format        assemble.Format
	showHelp      bool
	showAssembled bool
	// output is the full answer of the last command that reports more
	// than a status line can hold (ask, status, deps, ...); it replaces
	// the preview until the next key.
	output string

	cmd    cmdLine
	search searchOverlay

	status    string
	statusErr bool
	busy      int
	indexing  string
	undo      []action
	redo      []action
	seq       int // request counter; stale replies are dropped
	ready     bool
}

// action is an engine command line and the one that undoes it.
type action struct{ do, undo []string }

// New builds the workbench.
func New(o Options) Model {
	m := Model{opts: o, keys: DefaultKeyMap(), styles: o.Styles, run: &runner{e: o.Engine}, hl: &Highlighter{},
		help: help.New(), spin: spinner.New(spinner.WithSpinner(spinner.MiniDot)), format: assemble.MDCtx}
	m.format = o.Engine.Format()
	m.cmd = newCmdLine()
	m.search = newSearchOverlay()
	m.help.Styles = o.Styles.HelpStyles()
	return m
}

// Init loads the flow and starts indexing.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.loadCmd(), m.spin.Tick}
	if m.opts.Index != nil {
		cmds = append(cmds, m.indexCmd())
	}
	return tea.Batch(cmds...)
}

// Messages.
type (
	snapMsg struct{ snap snapshot }
	execMsg struct {
		seq   int
		act   action
		out   string
		err   error
		snap  snapshot
		undo  bool // this was an undo: push to redo
		quiet bool
	}
)

func (m Model) loadCmd() tea.Cmd {
	r, format := m.run, m.format
	return func() tea.Msg { return snapMsg{r.snapshot(format)} }
}

// execCmd runs words through the engine.
func (m *Model) execCmd(act action, isUndo bool) tea.Cmd {
	m.seq++
	m.busy++
	r, format, seq := m.run, m.format, m.seq
	return func() tea.Msg {
		out, err, snap := r.exec(context.Background(), act.do, format)
		return execMsg{seq: seq, act: act, out: out, err: err, snap: snap, undo: isUndo}
	}
}

// Update routes a message: results first, then keys by focus, with a
// focused text input seeing keys before any global binding. Whatever the
// message, the selection's code is then lexed in the background if the
// preview would otherwise draw it plain.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	next, cmd := m.update(msg)
	nm := next.(Model)
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
		m.clamp()
		return m, nil
	case snapMsg:
		m.snap, m.ready = msg.snap, true
		m.clamp()
		return m, nil
	case execMsg:
		return m.handleExec(msg)
	case spinner.TickMsg:
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case indexMsg:
		return m.handleIndex(msg)
	case flowChangedMsg:
		return m, m.loadCmd()
	case searchResultMsg, searchTickMsg:
		return m.updateSearch(msg)
	case tea.MouseMsg:
		return m.handleMouse(msg)
	case tea.KeyMsg:
		return m.handleKey(msg)
	}
	return m, nil
}

func (m Model) handleExec(msg execMsg) (tea.Model, tea.Cmd) {
	m.busy = max(0, m.busy-1)
	m.snap, m.ready = msg.snap, true
	m.clamp()
	if msg.err != nil {
		m.status, m.statusErr = firstLine(msg.err.Error()), true
		return m, nil
	}
	m.status, m.statusErr = summary(msg.out), false
	if reports(msg.act.do) {
		m.output = strings.TrimRight(msg.out, "\n")
	}
	if len(msg.act.undo) > 0 {
		if msg.undo {
			m.redo = append(m.redo, action{do: msg.act.undo, undo: msg.act.do})
		} else {
			m.undo = append(m.undo, msg.act)
		}
	}
	return m, nil
}

func (m Model) handleKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch m.focus {
	case focusCommand:
		return m.updateCmdLine(msg)
	case focusSearch:
		return m.updateSearch(msg)
	}
	if m.showHelp {
		m.showHelp = false
		return m, nil
	}
	if m.output != "" {
		m.output = "" // any key closes the answer
		if key.Matches(msg, m.keys.Cancel) {
			return m, nil
		}
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Quit):
		return m, tea.Quit
	case key.Matches(msg, k.Help):
		m.showHelp = true
	case key.Matches(msg, k.Command):
		m.focus = focusCommand
		m.cmd.open("")
	case key.Matches(msg, k.Search):
		m.focus = focusSearch
		m.search.open()
	case key.Matches(msg, k.NextPane):
		m.nextPane()
	case key.Matches(msg, k.Assembled):
		m.showAssembled = !m.showAssembled
		m.assembledTop = 0
		if m.showAssembled {
			m.focus = focusAssembled
		} else {
			m.focus = focusList
		}
	case key.Matches(msg, k.Format):
		return m.cycleFormat()
	case key.Matches(msg, k.Copy):
		return m.runWords([]string{"assemble", "--copy", "--format", string(m.format)}, nil)
	case key.Matches(msg, k.Export):
		m.focus = focusCommand
		m.cmd.open("/export ")
	case key.Matches(msg, k.Reload):
		return m, m.loadCmd()
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
		top := &m.previewTop
		if m.focus == focusAssembled {
			top = &m.assembledTop
		}
		switch {
		case key.Matches(msg, k.Down):
			*top++
		case key.Matches(msg, k.Up):
			*top = max(0, *top-1)
		case key.Matches(msg, k.PageDown):
			*top += m.bodyHeight() / 2
		case key.Matches(msg, k.PageUp):
			*top = max(0, *top-m.bodyHeight()/2)
		case key.Matches(msg, k.Top):
			*top = 0
		}
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
			return m.runWords([]string{"evidence", "focus", "off"}, nil)
		}
		m.focus = focusCommand
		m.cmd.open("/evidence focus ")
	}
	return m, nil
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
	m.cursor = max(0, min(len(m.snap.Rows)-1, m.cursor+d))
	m.previewTop = 0
	m.clamp()
}

// clamp keeps the cursor on a row and the row on screen.
func (m *Model) clamp() {
	m.cursor = max(0, min(len(m.snap.Rows)-1, m.cursor))
	h := max(1, m.listHeight())
	if m.cursor < m.top {
		m.top = m.cursor
	}
	if m.cursor >= m.top+h {
		m.top = m.cursor - h + 1
	}
	m.top = max(0, min(m.top, max(0, len(m.snap.Rows)-1)))
}

func (m Model) selected() (row, bool) {
	if m.cursor < 0 || m.cursor >= len(m.snap.Rows) {
		return row{}, false
	}
	return m.snap.Rows[m.cursor], true
}

// runWords runs a command line; undo is the command line that reverses
// it, nil when it cannot be undone.
func (m Model) runWords(words, undo []string) (tea.Model, tea.Cmd) {
	m.status, m.statusErr = strings.Join(words, " ")+" …", false
	cmd := m.execCmd(action{do: words, undo: undo}, false)
	return m, cmd
}

func (m Model) toggleSelected() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	// Show the new state at once; the engine's answer replaces the row.
	m.snap.Rows = append([]row(nil), m.snap.Rows...)
	m.snap.Rows[m.cursor].Active = !r.Active
	words := []string{"evidence", "toggle", r.ID}
	return m.runWords(words, words)
}

func (m Model) pinSelected() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	if r.Pinned {
		return m.runWords([]string{"evidence", "pin", r.ID, "off"}, []string{"evidence", "pin", r.ID})
	}
	return m.runWords([]string{"evidence", "pin", r.ID}, []string{"evidence", "pin", r.ID, "off"})
}

func (m Model) removeSelected() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	return m.runWords([]string{"evidence", "remove", r.ID}, []string{"evidence", "restore", r.Name})
}

// moveRank moves the selected part before the previous part or after the
// next one, taking the first free rank between them.
func (m Model) moveRank(dir int) (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m, nil
	}
	to, ok := m.freeRank(dir)
	if !ok {
		m.status, m.statusErr = "no free rank there: run `:evidence rebase` to make room", true
		return m, nil
	}
	kind := strings.TrimPrefix(r.ID, r.Rank+"_")
	newID := fmt.Sprintf("%03d_%s", to, kind)
	m.cursor += dir
	return m.runWords([]string{"evidence", "rank", r.ID, fmt.Sprint(to)}, []string{"evidence", "rank", newID, r.Rank})
}

// freeRank finds a free rank past the neighbour in direction dir.
func (m Model) freeRank(dir int) (int, bool) {
	rows := m.snap.Rows
	i := m.cursor + dir
	if i < 0 || i >= len(rows) {
		return 0, false
	}
	used := map[int]bool{}
	for _, r := range rows {
		used[atoi(r.Rank)] = true
	}
	lo, hi := atoi(rows[i].Rank), -1
	if j := i + dir; j >= 0 && j < len(rows) {
		hi = atoi(rows[j].Rank)
	} else if dir > 0 {
		hi = 1000
	}
	if dir < 0 {
		for c := lo - 1; c > hi && c >= 0; c-- {
			if !used[c] {
				return c, true
			}
		}
		return 0, false
	}
	for c := lo + 1; c < hi && c <= 999; c++ {
		if !used[c] {
			return c, true
		}
	}
	return 0, false
}

func (m Model) undoLast() (tea.Model, tea.Cmd) {
	if len(m.undo) == 0 {
		m.status, m.statusErr = "nothing to undo", false
		return m, nil
	}
	a := m.undo[len(m.undo)-1]
	m.undo = m.undo[:len(m.undo)-1]
	return m, m.execCmd(action{do: a.undo, undo: a.do}, true)
}

func (m Model) redoLast() (tea.Model, tea.Cmd) {
	if len(m.redo) == 0 {
		m.status, m.statusErr = "nothing to redo", false
		return m, nil
	}
	a := m.redo[len(m.redo)-1]
	m.redo = m.redo[:len(m.redo)-1]
	m.undo = append(m.undo, action{do: a.do, undo: a.undo})
	return m, m.execCmd(action{do: a.do}, false)
}

func (m Model) cycleFormat() (tea.Model, tea.Cmd) {
	for i, f := range assemble.Formats {
		if f == m.format {
			m.format = assemble.Formats[(i+1)%len(assemble.Formats)]
			break
		}
	}
	m.status, m.statusErr = "format: "+string(m.format), false
	return m, m.loadCmd()
}

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
	case m.showAssembled:
		m.assembledTop = max(0, m.assembledTop+d)
	case msg.X > m.listWidth():
		m.previewTop = max(0, m.previewTop+d)
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
		return len(words) > 1 && slices.Contains([]string{"status", "plan", "budget", "deps", "fit", "focus", "gather", "from-output", "refresh", "rebase"}, words[1])
	case "flow":
		return len(words) > 1 && (words[1] == "list" || words[1] == "show")
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
