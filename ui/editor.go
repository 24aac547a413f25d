package ui

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	shellquote "github.com/kballard/go-shellquote"
)

// The editor key opens a part in $VISUAL, else $EDITOR, else vi, with the
// terminal handed over (tea.ExecProcess), and reloads the flow after.
//
// Evidence parts and other system or user parts are edited in place: a
// hand edit, which `evidence refresh` leaves alone (issue 13). The request
// and the policy are edited as a copy that is then set through `flow set`,
// so a part that does not exist yet can be written and the edit is undone
// with u like `/request TEXT`.

type (
	// editReadyMsg is a copy of the request or policy, ready to edit.
	editReadyMsg struct {
		which, path string
		err         error
	}
	// editedMsg says the editor exited; err is its failure.
	editedMsg struct {
		which, path, name string // which is set for a copy of the request or policy
		err               error
	}
	// editTextMsg is the text of an edited copy.
	editTextMsg struct {
		which, text, path string
		changed           bool
		err               error
	}
)

// editorArgv is the editor's command line: $VISUAL, else $EDITOR, else vi,
// split as a shell would ("code --wait").
func editorArgv(getenv func(string) string) ([]string, error) {
	for _, name := range []string{"VISUAL", "EDITOR"} {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			continue
		}
		argv, err := shellquote.Split(v)
		if err != nil || len(argv) == 0 {
			return nil, fmt.Errorf("$%s=%q cannot be split into a command (%v): fix its quoting", name, v, err)
		}
		return argv, nil
	}
	return []string{"vi"}, nil
}

// editorProcess is the editor opening path.
func editorProcess(getenv func(string) string, path string) (*exec.Cmd, error) {
	argv, err := editorArgv(getenv)
	if err != nil {
		return nil, err
	}
	return exec.Command(argv[0], append(argv[1:], path)...), nil
}

// editSelected opens the selected part; with none, the request.
func (m Model) editSelected() (tea.Model, tea.Cmd) {
	r, ok := m.selected()
	if !ok {
		return m.editText("request")
	}
	if (r.Kind == "request" || r.Kind == "policy") && r.Role == textRole[r.Kind] {
		if tr, _ := m.textRow(r.Kind); tr.ID == r.ID {
			return m.editText(r.Kind)
		}
	}
	return m.editPath(editedMsg{path: r.Path, name: r.Name})
}

// editText edits a copy of the request or policy (empty when the flow
// has none yet).
func (m Model) editText(which string) (tea.Model, tea.Cmd) {
	if len(m.queue) > 0 {
		// The copy must hold the text as the queued changes leave it.
		m.status, m.statusErr = "one moment: the last change is still being applied (press again once it is)", false
		return m, nil
	}
	r, ok := m.textRow(which)
	src := ""
	if ok {
		src = r.Path
	}
	return m, func() tea.Msg {
		path, err := editCopy(which, src)
		return editReadyMsg{which: which, path: path, err: err}
	}
}

// editCopy writes the part's text (none for "") to a temporary file.
func editCopy(which, src string) (string, error) {
	var text []byte
	if src != "" {
		raw, err := os.ReadFile(src)
		if err != nil {
			return "", fmt.Errorf("read the %s to edit it: %w", which, err)
		}
		text = raw
	}
	f, err := os.CreateTemp("", "dossier-"+which+"-*.md")
	if err != nil {
		return "", fmt.Errorf("a copy of the %s to edit: %w", which, err)
	}
	_, err = f.Write(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("a copy of the %s to edit: %w", which, err)
	}
	return f.Name(), nil
}

// editPath hands the terminal to the editor on msg.path; msg comes back
// when it exits.
func (m Model) editPath(msg editedMsg) (tea.Model, tea.Cmd) {
	c, err := editorProcess(os.Getenv, msg.path)
	if err != nil {
		m.status, m.statusErr = err.Error(), true
		return m, nil
	}
	what := msg.name
	if msg.which != "" {
		what = "the " + msg.which
	}
	m.status, m.statusErr = "editing "+what+" in "+c.Args[0]+" …", false
	return m, tea.ExecProcess(c, func(err error) tea.Msg {
		msg.err = err
		return msg
	})
}

func (m Model) handleEditReady(msg editReadyMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		m.status, m.statusErr = msg.err.Error(), true
		return m, nil
	}
	return m.editPath(editedMsg{which: msg.which, path: msg.path})
}

// handleEdited reloads the flow after an in-place edit, or reads an edited
// copy back. A failed editor changes nothing: an in-place edit is as the
// editor left the file, and a copy is kept and named.
func (m Model) handleEdited(msg editedMsg) (tea.Model, tea.Cmd) {
	argv, _ := editorArgv(os.Getenv)
	editor := "vi"
	if len(argv) > 0 {
		editor = argv[0]
	}
	if msg.which == "" {
		if msg.err != nil {
			m.status, m.statusErr = fmt.Sprintf("the editor %s failed (%v): %s is as the editor left it; set $VISUAL or $EDITOR to an editor that works", editor, msg.err, msg.name), true
		} else {
			m.status, m.statusErr = "edited "+msg.name, false
		}
		return m, m.readCmd(true)
	}
	if msg.err != nil {
		m.status, m.statusErr = fmt.Sprintf("the editor %s failed (%v): the %s is unchanged (your copy: %s); set $VISUAL or $EDITOR to an editor that works", editor, msg.err, msg.which, msg.path), true
		return m, nil
	}
	r, had := m.textRow(msg.which)
	src := ""
	if had {
		src = r.Path
	}
	return m, func() tea.Msg { return readEdited(msg.which, msg.path, src) }
}

// readEdited reads the edited copy and compares it with the part; the
// copy goes once its text is set (or found unchanged).
func readEdited(which, path, src string) tea.Msg {
	raw, err := os.ReadFile(path)
	if err != nil {
		return editTextMsg{which: which, path: path, err: fmt.Errorf("read the edited %s: %w", which, err)}
	}
	before := ""
	if src != "" {
		b, _ := os.ReadFile(src)
		before = string(b)
	}
	text := strings.TrimRight(string(raw), "\n")
	changed := text != strings.TrimRight(before, "\n")
	if !changed || strings.TrimSpace(text) == "" {
		os.Remove(path)
	}
	return editTextMsg{which: which, text: text, path: path, changed: changed}
}

func (m Model) handleEditText(msg editTextMsg) (tea.Model, tea.Cmd) {
	switch {
	case msg.err != nil:
		m.status, m.statusErr = msg.err.Error()+" (the copy: "+msg.path+")", true
		return m, nil
	case strings.TrimSpace(msg.text) == "":
		m.status, m.statusErr = "the "+msg.which+" is unchanged: the edited text was empty", false
		return m, nil
	case !msg.changed:
		m.status, m.statusErr = "the "+msg.which+" is unchanged", false
		return m, nil
	}
	m.status, m.statusErr = "flow set "+msg.which+" …", false
	return m, m.setTextCmd(msg.which, msg.text, msg.path)
}
