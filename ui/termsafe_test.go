package ui

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/themes"
)

// A file whose name and content try to write the clipboard (OSC 52),
// clear the screen, retitle the window, and overwrite a line.
const (
	evilName    = "evil\x1b]52;c;aGk=\x07\x1b[2J.go"
	evilContent = "package evil\n\n// Evil \x1b]52;c;cHduZWQ=\x07 \x1b[2J \x1b]0;title\x07 \u009b31m\n// Over\rwrite\b\b.\nfunc Evil() {}\n"
)

// sgr matches the colour sequences the workbench's own styles write.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// checkScreen fails when a view holds anything a terminal acts on other
// than the styles' own colours, or a line that is not w cells wide.
func checkScreen(t *testing.T, what, view string, w int) {
	t.Helper()
	plain := sgr.ReplaceAllString(view, "")
	for i, r := range plain {
		if (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Errorf("%s: %U at byte %d escaped the neutralizer:\n%q", what, r, i, plain)
			return
		}
	}
	for i, l := range strings.Split(view, "\n") {
		if lw := lipgloss.Width(l); lw != w {
			t.Errorf("%s: line %d is %d cells wide, want %d: %q", what, i, lw, w, l)
			return
		}
	}
}

func TestFileEscapesAreShownNotObeyed(t *testing.T) {
	fake := func(ctx context.Context, q search.Query, _ search.Graph) (search.Response, error) {
		return search.Response{Results: []search.Result{{Path: evilName, StartLine: 1, EndLine: 5, Symbol: "Evil\x1b[2J",
			Language: "go", Score: 0.9, Sources: []string{"text"}}}}, nil
	}
	m, root := newTestModel(t, fake)
	if err := os.WriteFile(filepath.Join(root, evilName), []byte(evilContent), 0o644); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	for _, profile := range []termenv.Profile{termenv.Ascii, termenv.ANSI256} {
		r := lipgloss.NewRenderer(io_discard{})
		r.SetColorProfile(profile)
		r.SetHasDarkBackground(true)
		m.styles = themes.NewStyles(r, themes.Dark(), profile == termenv.Ascii)
		m.hl = &Highlighter{}
		t.Run(profile.Name(), func(t *testing.T) { checkViews(t, m, fake) })
	}
}

func checkViews(t *testing.T, m Model, fake SearchFunc) {
	const w = 100
	add, cmd := m.runWords([]string{"evidence", "add", evilName}, nil)
	m = drive(t, add.(Model), cmd)
	sel := -1
	for i, r := range m.snap.Rows {
		if strings.Contains(r.Source, "evil") {
			sel = i
		}
	}
	if sel < 0 {
		t.Fatalf("the evil file was not added: %s (%s)", rowStates(m), m.status)
	}
	m.list.cursor = sel
	main := m.View()
	checkScreen(t, "list and preview", main, w)
	for _, want := range []string{`\x1b]52;c;cHduZWQ=\a`, `Over\rwrite\b\b.`} {
		if !strings.Contains(main, want) {
			t.Errorf("the preview does not show %s:\n%s", want, main)
		}
	}
	checkScreen(t, "assembled", keys(t, m, "v").View(), w)

	status, cmd := m.runWords([]string{"evidence", "status"}, nil)
	checkScreen(t, "status line while running", status.(Model).View(), w)
	out := drive(t, status.(Model), cmd)
	if out.output == "" {
		t.Fatal("evidence status opened no output pane")
	}
	checkScreen(t, "output pane", out.View(), w)

	bad, cmd := m.runWords([]string{"evidence", "add", evilName + "::900,901"}, nil)
	failed := drive(t, bad.(Model), cmd)
	if !failed.statusErr {
		t.Errorf("a bad range did not fail: %q", failed.status)
	}
	checkScreen(t, "error status", failed.View(), w)

	s := keys(t, m, "/")
	s = typeText(t, s, "evil")
	s = drive(t, s, func() tea.Msg { return searchTickMsg{s.search.seq} })
	v := s.View()
	checkScreen(t, "search overlay", v, w)
	if !strings.Contains(v, `evil\x1b]52;c;aGk=\a\x1b[2J.go:1-5`) || !strings.Contains(v, `\x1b]0;title\a`) {
		t.Errorf("the search overlay does not show the escaped result and preview:\n%s", v)
	}
}
