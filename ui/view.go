package ui

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/themes"
	"github.com/dossierhq/dossier/ui/termsafe"
)

// Minimum terminal size the layout needs.
const (
	minWidth  = 60
	minHeight = 15
	meterRows = 6
)

// View draws the whole screen. A panic while drawing is logged and shown
// as a line, never a broken terminal.
func (m Model) View() (out string) {
	defer func() {
		if p := recover(); p != nil {
			m.logf("panic in View: %v\n%s", p, debug.Stack())
			out = fmt.Sprintf("dossier could not draw the screen (%v); press q, and see the debug log (--debug)", p)
		}
	}()
	if m.width == 0 {
		return ""
	}
	if m.width < minWidth || m.height < minHeight {
		msg := ansi.Truncate(fmt.Sprintf("terminal too small: %dx%d", m.width, m.height), m.width, "…") + "\n" +
			ansi.Truncate(fmt.Sprintf("dossier needs at least %dx%d", minWidth, minHeight), m.width, "…")
		return lipgloss.Place(m.width, m.height, lipgloss.Center, lipgloss.Center, msg)
	}
	var body string
	switch {
	case m.showHelp:
		body = m.pane("Help", m.help.FullHelpView(m.keys.FullHelp())+"\n\n"+commandHelp, m.width, m.bodyHeight(), true)
	case m.focus == focusSearch:
		body = m.searchView(m.width, m.bodyHeight())
	case m.focus == focusTree:
		body = m.treeBody(m.bodyHeight())
	case m.focus == focusConfirm:
		body = m.confirmView(m.width, m.bodyHeight())
	case m.ans.open:
		body = m.answerView(m.width, m.bodyHeight())
	default:
		left := m.listView(m.listWidth(), m.bodyHeight())
		right := m.rightView(m.width-m.listWidth(), m.bodyHeight())
		body = lipgloss.JoinHorizontal(lipgloss.Top, left, right)
	}
	return lipgloss.JoinVertical(lipgloss.Left, m.titleView(), body, m.statusView(), m.bottomView())
}

// commandHelp lists the command line's words, so the help screen names
// the command behind every key.
const commandHelp = `Command line (:), each key is also a command:
  /evidence status|add|toggle|pin|rank|move|swap|remove|restore|focus|fit|deps ...
  /evidence refresh|rebase|gather|from-output ...
  /ask QUESTION   /flow new|list|use|show   /budget [set N]   /format mdctx|aptix|responses|pack
  /copy   /export PATH   /search QUERY   /view   /reload   /undo   /redo   /help   /quit
  /request [TEXT]   /policy [TEXT] (no text: the editor)   /edit   /send [TEXT]   /followup TEXT   /turns`

// bodyHeight is what is left between the title and the two bottom lines.
func (m Model) bodyHeight() int { return max(3, m.height-3) }

func (m Model) listWidth() int { return max(30, m.width*9/20) }

// listHeight is the rows the list pane shows (inside its border).
func (m Model) listHeight() int { return max(1, m.bodyHeight()-2) }

// pane draws a bordered box with the workbench's styles (see frame).
func (m Model) pane(title, content string, w, h int, focused bool) string {
	return frame(m.styles, title, content, w, h, focused)
}

// frame draws a bordered box of exactly w x h cells with a title.
func frame(st themes.Styles, title, content string, w, h int, focused bool) string {
	border, tstyle := st.PaneBorder, st.PaneTitle
	if focused {
		border, tstyle = st.PaneBorderFocused, st.PaneTitleFocused
	}
	inner := max(1, w-2)
	lines := strings.Split(content, "\n")
	if len(lines) > h-2 {
		lines = lines[:max(0, h-2)]
	}
	for i, l := range lines {
		lines[i] = fit(l, inner)
	}
	for len(lines) < h-2 {
		lines = append(lines, strings.Repeat(" ", inner))
	}
	box := border.Width(inner).Height(max(0, h-2)).Render(strings.Join(lines, "\n"))
	// The title replaces the start of the top border.
	first, rest, _ := strings.Cut(box, "\n")
	t := tstyle.Render(" " + ansi.Truncate(title, max(0, inner-2), "…") + " ")
	if lipgloss.Width(t)+2 <= lipgloss.Width(first) {
		first = ansi.Truncate(first, 1, "") + t + ansi.TruncateLeft(first, 1+lipgloss.Width(t), "")
	}
	return first + "\n" + rest
}

// fit pads or truncates a styled line to exactly w cells.
func fit(s string, w int) string {
	if lipgloss.Width(s) > w {
		return ansi.Truncate(s, w, "…")
	}
	return s + strings.Repeat(" ", w-lipgloss.Width(s))
}

func (m Model) titleView() string {
	s := m.snap
	name := s.FlowID
	switch {
	case !m.ready:
		return m.styles.StatusBar.Render(fit(" dossier · loading the flow…", m.width))
	case name == "":
		name = "(no flow)"
	}
	kind := "exact"
	if !s.Exact {
		kind = "estimate"
	}
	t := fmt.Sprintf(" dossier · %s · %s · %d/%d tokens (%s)", termsafe.Line(name), m.format, s.Tokens, s.Budget, kind)
	if s.Focus != "" {
		t += fmt.Sprintf(" · focus %q", s.Focus) // %q escapes it
	}
	if m.indexing != "" {
		t += " · " + m.indexing
	} else if m.indexNote != noteNone {
		t += " · " + m.indexNote.String()
	}
	if s.HasCost { // last: a narrow title cuts it first
		t += " · " + evidence.CostWord(s.Cost) + " to send"
	}
	return m.styles.StatusBar.Render(fit(t, m.width))
}

func (m Model) listView(w, h int) string {
	return m.list.view(m.styles, m.snap, w, h, m.focus == focusList)
}

func (m Model) rightView(w, h int) string {
	if m.output != "" {
		// Wrapped, not cut: a warning (a secret redacted on copy) names
		// what it found at the end of a long line.
		text := ansi.Wrap(strings.ReplaceAll(termsafe.String(m.output), "\t", "    "), max(1, w-2), "")
		return m.pane("Output · any key closes", text, w, h, true)
	}
	if m.showAssembled {
		return m.assembledView(w, h)
	}
	ph := h - meterRows
	return lipgloss.JoinVertical(lipgloss.Left, m.previewView(w, ph), m.meterView(w, meterRows))
}

func (m Model) previewView(w, h int) string {
	r, ok := m.selected()
	if !ok {
		return m.pane("Preview", "", w, h, m.focus == focusPreview)
	}
	title := termsafe.Line(r.Name)
	if r.Source != "" {
		title = termsafe.Line(r.Source)
	}
	lines, total := m.highlight(r.Code, r.Lang, r.StartLine, m.preview.top, h-2, w-2)
	if total > h-2 {
		title += fmt.Sprintf(" (%d/%d)", min(total, m.preview.top+1), total)
	}
	return m.pane(title, strings.Join(lines, "\n"), w, h, m.focus == focusPreview)
}

func (m Model) meterView(w, h int) string {
	r, ok := m.selected()
	return meterView(m.styles, m.snap, r, ok, w, h)
}

// assembledView shows the prompt through the plain highlighter: tabs
// expanded, control characters made visible, lines cut to the pane.
func (m Model) assembledView(w, h int) string {
	lines, total := m.hl.Highlight(nil, m.snap.Text, "text", 1, m.assembled.top, h-2, w-2)
	top := min(m.assembled.top, max(0, total-1))
	title := fmt.Sprintf("Assembled · %s · lines %d-%d of %d", m.format, top+1, min(total, top+h-2), total)
	return m.pane(title, strings.Join(lines, "\n"), w, h, m.focus == focusAssembled)
}

func (m Model) statusView() string {
	st := m.styles
	// Statuses quote command lines and errors, which name files.
	text := termsafe.Line(m.status)
	if m.busy > 0 {
		text = m.spin.View() + " " + text
	}
	if n := len(m.queue) - 1; n > 0 {
		text += fmt.Sprintf(" (%d more waiting)", n)
	}
	if m.statusErr {
		return st.StatusError.Render(fit(" "+text, m.width))
	}
	return st.StatusOK.Render(fit(" "+text, m.width))
}

func (m Model) bottomView() string {
	if m.focus == focusCommand {
		return fit(m.cmd.view(m.styles), m.width)
	}
	return fit(m.help.ShortHelpView(m.keys.ShortHelp()), m.width)
}
