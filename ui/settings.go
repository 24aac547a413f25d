package ui

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/fsnotify/fsnotify"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence"
)

// The workbench reads [llm] (and [ui] confirm_send) again whenever a
// config file changed, without a restart: before every send, so the next
// send after an edit uses the new model and endpoint, and as soon as a
// watched file changes, so the status line says so at once. A config that
// no longer reads (a typo, an unknown setting) sends nothing until it is
// fixed: the last good settings are not used, since the edit was meant to
// change them, and the status line names the file, line and problem.

// SendSettings are the settings a send takes from the config files.
type SendSettings struct {
	LLM evidence.LLMConfig
	// Confirm has a send off this machine ask first ([ui] confirm_send).
	Confirm bool
	// Notice is the config's first notice (the ignored settings of an
	// untrusted workspace), or "".
	Notice string
}

type (
	// configChangedMsg says a watched config file changed on disk.
	configChangedMsg struct{}
	// settingsMsg is the settings read again after a change.
	settingsMsg struct {
		changed bool
		err     error
		s       SendSettings
		snap    snapshot // the title's cost follows the model
	}
)

// refreshSettings reads the settings again when a config file changed
// (its size, time or presence) since the last read, and reports whether
// the settings did (an edit elsewhere in the file changes nothing to
// say); the error of a config that does not read stays until the files
// change again. The engine's lock is held.
func (r *runner) refreshSettings() (bool, error) {
	if r.settings == nil {
		return false, nil
	}
	p := filesPrint(r.cfgFiles)
	if p == r.cfgPrint {
		return false, r.cfgErr
	}
	r.cfgPrint = p
	s, err := r.settings()
	if err != nil {
		r.cfgErr = fmt.Errorf("%w; nothing is sent until the config reads again", err)
		return true, r.cfgErr
	}
	changed := r.cfgErr != nil || !reflect.DeepEqual(s.LLM, r.e.LLM) || s.Confirm != r.confirm || s.Notice != r.cfgNotice
	r.cfgErr = nil
	r.e.LLM, r.confirm, r.cfgNotice = s.LLM, s.Confirm, s.Notice
	return changed, nil
}

// reloadSettings is refreshSettings under the lock, with a fresh snapshot
// when the settings changed.
func (r *runner) reloadSettings(format assemble.Format) settingsMsg {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return settingsMsg{}
	}
	changed, err := r.refreshSettings()
	msg := settingsMsg{changed: changed, err: err}
	if changed && err == nil {
		msg.s = SendSettings{LLM: r.e.LLM, Confirm: r.confirm, Notice: r.cfgNotice}
		msg.snap = r.read(format)
	}
	return msg
}

// handleSettings says on the status line what a changed config does now.
func (m Model) handleSettings(msg settingsMsg) (tea.Model, tea.Cmd) {
	switch {
	case !msg.changed:
		return m, nil
	case msg.err != nil:
		m.status, m.statusErr = firstLine(msg.err.Error()), true
		return m, nil
	}
	l := msg.s.LLM
	s := "config changed: no [llm] base_url and model, nothing is sent"
	if strings.TrimSpace(l.BaseURL) != "" && l.Model != "" {
		s = fmt.Sprintf("config changed: S sends to %s at %s", l.Model, l.BaseURL)
	}
	if msg.s.Notice != "" {
		s += " · " + msg.s.Notice
	}
	m.status, m.statusErr = s, msg.s.Notice != ""
	return m, m.takeSnapshot(msg.snap)
}

func (m Model) settingsCmd() tea.Cmd {
	r, format := m.run, m.format
	return func() tea.Msg { return r.reloadSettings(format) }
}

// filesPrint is the size and time of each file, or that it is missing.
func filesPrint(files []string) string {
	var b strings.Builder
	for _, f := range files {
		if st, err := os.Stat(f); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", f, st.Size(), st.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s -\n", f)
		}
	}
	return b.String()
}

// watchConfig tells the program when one of files is written, created,
// renamed or removed (an editor's save by rename included), at most every
// 150 ms. It watches their directories; one that does not exist is not
// watched, and a send still reads the files again.
func watchConfig(files []string, p *tea.Program, logger *log.Logger) func() {
	if len(files) == 0 {
		return func() {}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		logger.Printf("watch config: %v", err)
		return func() {}
	}
	names := map[string]bool{}
	for _, f := range files {
		names[filepath.Clean(f)] = true
		if err := w.Add(filepath.Dir(f)); err != nil {
			logger.Printf("watch config: %v", err)
		}
	}
	return debounce(w, p, configChangedMsg{}, logger, func(ev fsnotify.Event) bool { return names[filepath.Clean(ev.Name)] })
}
