package ui

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	shellquote "github.com/kballard/go-shellquote"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/themes"
)

// cmdLine is the ':' command line: the engine's words with a leading '/',
// completion of words, ids and paths, and history.
type cmdLine struct {
	input   textinput.Model
	history []string
	hpos    int
}

func newCmdLine() cmdLine {
	ti := textinput.New()
	ti.Prompt = ""
	ti.CharLimit = 4000
	return cmdLine{input: ti}
}

func (c *cmdLine) open(text string) {
	c.input.SetValue(text)
	c.input.CursorEnd()
	c.input.Focus()
	c.hpos = len(c.history)
}

func (c cmdLine) view(st themes.Styles) string {
	return st.CmdPrompt.Render(":") + c.input.View()
}

// uiWords are the command-line words only the workbench has; the rest go
// to the engine.
var uiWords = []string{"budget", "format", "copy", "export", "search", "view", "reload", "undo", "redo", "help", "quit",
	"request", "policy", "edit", "send", "followup", "turns"}

func (m Model) updateCmdLine(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	k := m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		m.focus = focusList
		m.cmd.input.Blur()
		return m, nil
	case msg.Type == tea.KeyEnter:
		line := strings.TrimSpace(m.cmd.input.Value())
		m.focus = focusList
		m.cmd.input.Blur()
		if line == "" {
			return m, nil
		}
		m.cmd.history = append(m.cmd.history, line)
		return m.runLine(line)
	case key.Matches(msg, k.Complete):
		return m, m.completeCmd(m.cmd.input.Value())
	case key.Matches(msg, k.HistoryUp):
		if m.cmd.hpos > 0 {
			m.cmd.hpos--
			m.cmd.input.SetValue(m.cmd.history[m.cmd.hpos])
			m.cmd.input.CursorEnd()
		}
		return m, nil
	case key.Matches(msg, k.HistoryDown):
		if m.cmd.hpos < len(m.cmd.history)-1 {
			m.cmd.hpos++
			m.cmd.input.SetValue(m.cmd.history[m.cmd.hpos])
		} else {
			m.cmd.hpos = len(m.cmd.history)
			m.cmd.input.SetValue("")
		}
		m.cmd.input.CursorEnd()
		return m, nil
	}
	var cmd tea.Cmd
	m.cmd.input, cmd = m.cmd.input.Update(msg)
	return m, cmd
}

// runLine runs one command line: "/evidence toggle off 300-399",
// "/ask what covers errors", "/format aptix", "/export out.md".
func (m Model) runLine(line string) (tea.Model, tea.Cmd) {
	words, err := shellquote.Split(strings.TrimPrefix(line, "/"))
	if err != nil {
		m.status, m.statusErr = "cannot split the line: "+err.Error(), true
		return m, nil
	}
	if len(words) == 0 {
		return m, nil
	}
	switch words[0] {
	case "quit", "q":
		return m.quit()
	case "help":
		m.showHelp = true
		return m, nil
	case "undo":
		return m.undoLast()
	case "redo":
		return m.redoLast()
	case "search":
		m.focus = focusSearch
		m.search.open()
		m.search.input.SetValue(strings.Join(words[1:], " "))
		return m, m.search.debounce()
	case "view":
		return m.toggleAssembled(), nil
	case "reload":
		return m, m.readCmd(true)
	case "format":
		if len(words) == 1 {
			return m.cycleFormat()
		}
		if len(words) != 2 {
			m.status, m.statusErr = "usage: /format [mdctx|aptix|responses|pack] (none: the next one)", true
			return m, nil
		}
		f, err := assemble.ParseFormat(words[1])
		if err != nil {
			m.status, m.statusErr = err.Error(), true
			return m, nil
		}
		m.format = f
		return m, m.loadCmd()
	case "copy":
		return m.runWords([]string{"assemble", "--copy", "--format", string(m.format)}, nil)
	case "export":
		if len(words) != 2 {
			m.status, m.statusErr = "usage: /export PATH", true
			return m, nil
		}
		return m.runWords([]string{"assemble", "--format", string(m.format), "--out", words[1]}, nil)
	case "budget":
		return m.runWords(append([]string{"evidence"}, words...), nil)
	case "request", "policy", "edit", "send", "followup", "turns":
		return m.runAnswerWord(words)
	case "flow":
		if len(words) > 2 && words[1] == "set" && (words[2] == "request" || words[2] == "policy") {
			return m.setText(words[2:]) // undoable, as /request is
		}
		return m.runWords(words, nil)
	case "evidence", "ask", "assemble", "env":
		if len(words) > 2 && words[1] == "from-output" && slices.Contains(words[2:], "-") {
			m.status, m.statusErr = "the workbench has no stdin to read: save the output to a file and give its path", true
			return m, nil
		}
		return m.runWords(words, inverse(words, m.snap.Focus, m.fitted()))
	}
	m.status, m.statusErr = "unknown command /"+words[0]+suggestWord(words[0]), true
	return m, nil
}

// inverse is the command line undoing words, for the commands whose
// inverse is known; nil otherwise. focus is the query of the focus on now
// and fitted whether a fit is in force: a second focus undoes to the
// first, and a fit on top of a fit has no exact inverse.
func inverse(words []string, focus string, fitted bool) []string {
	if len(words) < 2 || words[0] != "evidence" {
		return nil
	}
	off := len(words) > 2 && words[2] == "off"
	switch {
	case words[1] == "toggle" && len(words) > 2 && words[2] != "on" && !off:
		return words // toggle ID flips back; toggle on|off RANGE has no exact inverse
	case words[1] == "focus" && len(words) > 2 && !off && focus != "":
		return []string{"evidence", "focus", focus}
	case words[1] == "focus" && len(words) > 2 && !off:
		return []string{"evidence", "focus", "off"}
	case words[1] == "fit" && !off && !fitted:
		return []string{"evidence", "fit", "off"}
	}
	return nil
}

// suggestWord names the nearest command word.
func suggestWord(w string) string {
	all := append(append([]string{}, uiWords...), "evidence", "flow", "ask", "assemble", "env")
	best, bestD := "", 3
	for _, c := range all {
		if d := evidence.EditDistance(w, c); d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" {
		return ": try /evidence, /ask, /format, /copy, /export, /search or /help"
	}
	return "; did you mean /" + best + "?"
}

// completedMsg carries a completion back; it applies only if the line
// has not changed meanwhile.
type completedMsg struct{ from, to string }

// completeCmd completes in the background: path completion reads
// directories, which Update must not do.
func (m Model) completeCmd(line string) tea.Cmd {
	ids := make([]string, len(m.snap.Rows))
	for i, r := range m.snap.Rows {
		ids[i] = r.ID
	}
	root := m.opts.Root
	return func() tea.Msg { return completedMsg{from: line, to: complete(root, ids, line)} }
}

func (m Model) applyCompletion(msg completedMsg) (tea.Model, tea.Cmd) {
	if m.focus == focusCommand && m.cmd.input.Value() == msg.from {
		m.cmd.input.SetValue(msg.to)
		m.cmd.input.CursorEnd()
	}
	return m, nil
}

// complete extends the last word of line: command words first, then part
// ids, then workspace paths.
func complete(root string, ids []string, line string) string {
	words := strings.Fields(strings.TrimPrefix(line, "/"))
	if strings.HasSuffix(line, " ") || len(words) == 0 {
		words = append(words, "")
	}
	last := words[len(words)-1]
	var cands []string
	switch {
	case len(words) == 1:
		cands = append(append([]string{}, uiWords...), "evidence", "flow", "ask", "assemble", "env")
	case len(words) == 2 && (words[0] == "evidence" || words[0] == "flow"):
		cands = evidence.Words(words[0])
	case words[0] == "format":
		for _, f := range assemble.Formats {
			cands = append(cands, string(f))
		}
	default:
		cands = append(cands, ids...)
		cands = append(cands, pathCandidates(root, last)...)
	}
	var match []string
	for _, c := range cands {
		if strings.HasPrefix(c, last) {
			match = append(match, c)
		}
	}
	if len(match) == 0 {
		return line
	}
	sort.Strings(match)
	match = slices.Compact(match)
	done := commonPrefix(match)
	if len(match) == 1 && !strings.HasSuffix(done, "/") {
		done += " "
	}
	words[len(words)-1] = done
	return "/" + strings.Join(words, " ")
}

// pathCandidates lists workspace entries under the directory of prefix.
func pathCandidates(root, prefix string) []string {
	dir := filepath.Dir(filepath.FromSlash(prefix))
	if !strings.Contains(prefix, "/") {
		dir = "."
	}
	entries, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := e.Name()
		if dir != "." {
			p = filepath.ToSlash(filepath.Join(dir, e.Name()))
		}
		if e.IsDir() {
			p += "/"
		}
		out = append(out, p)
	}
	return out
}

// commonPrefix is the longest prefix of whole characters all of s share.
func commonPrefix(s []string) string {
	p := s[0]
	for _, x := range s[1:] {
		for !strings.HasPrefix(x, p) {
			_, size := utf8.DecodeLastRuneInString(p)
			p = p[:len(p)-size]
		}
	}
	return p
}
