package ui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble"
)

// textRole is the role of the part `/request` and `/policy` write.
var textRole = map[string]string{"request": "user", "policy": "system"}

// textRow is the flow's request or policy row, as the engine's
// Flow.TextPart finds it: the first user part of kind request, the first
// system part of kind policy.
func (m Model) textRow(which string) (row, bool) {
	for _, r := range m.snap.Rows {
		if r.Role == textRole[which] && r.Kind == which {
			return r, true
		}
	}
	return row{}, false
}

// setText runs `flow set request|policy TEXT` (words[0] is request or
// policy, the rest the text); without text it opens the part in the
// editor instead.
func (m Model) setText(words []string) (tea.Model, tea.Cmd) {
	which, rest := words[0], words[1:]
	if len(rest) > 0 && rest[0] == "--" { // typed as the CLI takes it
		rest = rest[1:]
	}
	text := strings.Join(rest, " ")
	if strings.TrimSpace(text) == "" {
		return m.editText(which)
	}
	m.status, m.statusErr = "flow set "+which+" …", false
	return m, m.setTextCmd(which, text, "")
}

// setTextCmd queues `flow set request|policy TEXT`, whose undo is made
// from what the part held before, read in the same hold of the engine's
// lock: the undo puts the old text back, or removes the part the command
// created. from, when set, is the edited copy the text came from: removed
// once the text is set, kept and named when it could not be.
func (m *Model) setTextCmd(which, text, from string) tea.Cmd {
	do := []string{"flow", "set", which, "--", text} // the text may start with '-'
	return m.execCmd(action{do: do, learn: learnText, which: which, from: from}, execNew)
}

// dropCopy removes the edited copy a text was set from, or names it in
// the error when the text could not be set.
func dropCopy(from string, err error) error {
	switch {
	case from == "":
	case err == nil:
		os.Remove(from)
	default:
		err = fmt.Errorf("your edit is kept in %s: %w", from, err) // first: the status shows one line
	}
	return err
}

// setText is exec for `flow set request|policy`, which also returns the
// command line that undoes it (nil when the command failed).
func (r *runner) setText(which string, words []string, format assemble.Format) ([]string, string, snapshot, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, "", r.last, errClosed
	}
	if !r.unchanged() {
		r.e.Reload()
	}
	old, had := r.textBefore(which)
	var out bytes.Buffer
	err := r.e.Exec(context.Background(), words, &out)
	var undo []string
	switch {
	case err != nil:
	case had:
		undo = []string{"flow", "set", which, "--", old}
	default:
		if f, ferr := r.e.Flow(); ferr == nil {
			if p := f.TextPart(which); p != nil {
				undo = []string{"evidence", "remove", p.ID()}
			}
		}
	}
	s := r.snapshotLocked(format)
	r.last, r.print = s, ""
	return undo, out.String(), s, err
}

// textBefore is the text of the flow's request or policy part, and
// whether it has one; the engine's lock is held.
func (r *runner) textBefore(which string) (string, bool) {
	f, err := r.e.Flow()
	if err != nil {
		return "", false
	}
	p := f.TextPart(which)
	if p == nil || strings.TrimSpace(p.Content) == "" {
		return "", false
	}
	return p.Content, true
}

// addCmd runs an `evidence add` whose undo removes the part it added,
// found by comparing the flow's parts before and after.
func (m *Model) addCmd(words []string) tea.Cmd {
	return m.execCmd(action{do: words, learn: learnAdd}, execNew)
}

func (r *runner) execAdd(words []string, format assemble.Format) ([]string, string, snapshot, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, "", r.last, errClosed
	}
	if !r.unchanged() {
		r.e.Reload()
	}
	before := map[string]bool{}
	if f, err := r.e.Flow(); err == nil {
		for _, p := range f.Parts {
			before[p.ID()] = true
		}
	}
	var out bytes.Buffer
	err := r.e.Exec(context.Background(), words, &out)
	var undo []string
	if f, ferr := r.e.Flow(); err == nil && ferr == nil {
		for _, p := range f.Parts {
			if !before[p.ID()] {
				undo = []string{"evidence", "remove", p.ID()}
			}
		}
	}
	s := r.snapshotLocked(format)
	r.last, r.print = s, ""
	return undo, out.String(), s, err
}
