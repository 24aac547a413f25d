package ui

import tea "github.com/charmbracelet/bubbletea"

// highlight renders code for the preview panes: source line numbers, syntax
// colours from the theme, truncated to width, from line offset from.
// Lexing a large file the first time takes chroma far longer than a frame,
// so until prepareCmd has done it the preview is drawn plain.
func (m Model) highlight(code, lang string, first, from, n, width int) ([]string, int) {
	if m.hl.Ready(&m.styles, code, lang) {
		return m.hl.Highlight(&m.styles, code, lang, first, from, n, width)
	}
	return m.hl.Highlight(nil, code, lang, first, from, n, width)
}

// preparedMsg says the selected part's code is lexed: the next frame
// shows it in colour.
type preparedMsg struct{}

// prepareCmd lexes the selected part (and the selected search result) in
// the background when the cache does not have them yet.
func (m Model) prepareCmd() tea.Cmd {
	var jobs [][2]string
	if r, ok := m.selected(); ok {
		jobs = append(jobs, [2]string{r.Code, r.Lang})
	}
	if c := m.search.cursor; m.focus == focusSearch && c >= 0 && c < len(m.search.previews) && c < len(m.search.results) {
		jobs = append(jobs, [2]string{m.search.previews[m.search.cursor], m.search.results[m.search.cursor].Language})
	}
	var todo [][2]string
	for _, j := range jobs {
		if !m.hl.Ready(&m.styles, j[0], j[1]) {
			todo = append(todo, j)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	hl, st := m.hl, m.styles
	return func() tea.Msg {
		for _, j := range todo {
			hl.Prepare(&st, j[0], j[1])
		}
		return preparedMsg{}
	}
}
