package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/themes"
)

// fixture is a workspace with a flow of three evidence parts and a request.
func fixture(t testing.TB) (string, *evidence.Engine) {
	t.Helper()
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	write("parser/parse.go", "package parser\n\n// Parse reads input and handles errors.\nfunc Parse(s string) error {\n\treturn nil\n}\n")
	write("render/render.go", "package render\n\n// Render draws colours.\nfunc Render() string {\n\treturn \"\"\n}\n")
	write("docs/guide.md", "# Guide\n\nHow to parse.\n")
	e := evidence.NewEngine(root)
	e.Getenv = func(string) string { return "" }
	e.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	ctx := context.Background()
	for _, words := range [][]string{
		{"flow", "new", "fix", "--request", "Fix parsing."},
		{"evidence", "add", "parser/parse.go"},
		{"evidence", "add", "render/render.go"},
		{"evidence", "add", "docs/guide.md", "--band", "supporting"},
	} {
		if err := e.Exec(ctx, words, io_discard{}); err != nil {
			t.Fatalf("%v: %v", words, err)
		}
	}
	e.Reload()
	return root, e
}

type io_discard struct{}

func (io_discard) Write(p []byte) (int, error) { return len(p), nil }

// testStyles are colourless so views compare as plain text.
func testStyles() themes.Styles {
	r := lipgloss.NewRenderer(io_discard{})
	r.SetColorProfile(termenv.Ascii)
	return themes.NewStyles(r, themes.Dark(), true)
}

func newTestModel(t testing.TB, search SearchFunc) (Model, string) {
	return newModelWith(t, func(_ string, o *Options) { o.Search = search })
}

// newModelWith is newTestModel on the fixture with options set by set
// (given the workspace root).
func newModelWith(t testing.TB, set func(root string, o *Options)) (Model, string) {
	root, e := fixture(t)
	o := Options{Root: root, Engine: e, Styles: testStyles()}
	set(root, &o)
	m := New(o)
	// A blinking cursor schedules a tick every half second; tests have no
	// use for it.
	m.cmd.input.Cursor.SetMode(cursor.CursorStatic)
	m.search.input.Cursor.SetMode(cursor.CursorStatic)
	m.tree.input.Cursor.SetMode(cursor.CursorStatic)
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	return m, root
}

// drive runs a command and feeds what it returns back into the model, as
// the Bubble Tea runtime would, leaving out the spinner's endless ticks.
func drive(t testing.TB, m Model, cmd tea.Cmd) Model {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0 && steps < 50; steps++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case nil, spinner.TickMsg:
			continue
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		}
		next, more := m.Update(msg)
		m = next.(Model)
		queue = append(queue, more)
	}
	return m
}

func send(t testing.TB, m Model, msg tea.Msg) Model {
	t.Helper()
	next, cmd := m.Update(msg)
	return drive(t, next.(Model), cmd)
}

func keys(t testing.TB, m Model, ks ...string) Model {
	t.Helper()
	for _, k := range ks {
		var msg tea.KeyMsg
		switch k {
		case "enter":
			msg = tea.KeyMsg{Type: tea.KeyEnter}
		case "esc":
			msg = tea.KeyMsg{Type: tea.KeyEsc}
		case "space":
			msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
		case "ctrl+r":
			msg = tea.KeyMsg{Type: tea.KeyCtrlR}
		case "tab":
			msg = tea.KeyMsg{Type: tea.KeyTab}
		default:
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
		}
		m = send(t, m, msg)
	}
	return m
}

func typeText(t testing.TB, m Model, s string) Model {
	for _, r := range s {
		m = send(t, m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return m
}

func rowStates(m Model) string {
	var out []string
	for _, r := range m.snap.Rows {
		s := "on"
		if !r.Active {
			s = "off"
		}
		if r.Pinned {
			s += "+pin"
		}
		out = append(out, r.ID+":"+s)
	}
	return strings.Join(out, " ")
}

func TestToggleUndoRedo(t *testing.T) {
	m, _ := newTestModel(t, nil)
	if got := rowStates(m); got != "010_request:on 100_parse_go:on 110_render_go:on 200_guide_md:on" {
		t.Fatalf("start: %s", got)
	}
	m = keys(t, m, "j", "space")
	if got := rowStates(m); !strings.Contains(got, "100_parse_go:off") {
		t.Errorf("after space: %s (status %q)", got, m.status)
	}
	if _, err := os.Stat(filepath.Join(m.snap.Dir, "ctx", "evidence", "100_parse_go.evidence.md.skip")); err != nil {
		t.Errorf("toggle did not rename the part: %v", err)
	}
	m = keys(t, m, "u")
	if got := rowStates(m); !strings.Contains(got, "100_parse_go:on") {
		t.Errorf("after undo: %s", got)
	}
	m = keys(t, m, "ctrl+r")
	if got := rowStates(m); !strings.Contains(got, "100_parse_go:off") {
		t.Errorf("after redo: %s", got)
	}
	before := m.snap.Tokens
	m = keys(t, m, "space")
	if m.snap.Tokens <= before {
		t.Errorf("enabling a part did not raise the total: %d -> %d", before, m.snap.Tokens)
	}
}

func TestPinRankRemoveRestore(t *testing.T) {
	m, _ := newTestModel(t, nil)
	m = keys(t, m, "j", "p")
	if !strings.Contains(rowStates(m), "100_parse_go:on+pin") {
		t.Errorf("pin: %s", rowStates(m))
	}
	m = keys(t, m, "J") // after 110_render_go
	if got := rowStates(m); !strings.Contains(got, "110_render_go:on 111_parse_go:on+pin") {
		t.Errorf("rank down: %s (%s)", got, m.status)
	}
	m = keys(t, m, "x")
	if strings.Contains(rowStates(m), "parse_go") {
		t.Errorf("remove: %s", rowStates(m))
	}
	m = keys(t, m, "u")
	if !strings.Contains(rowStates(m), "111_parse_go") {
		t.Errorf("undo remove: %s (%s)", rowStates(m), m.status)
	}
}

func TestCommandLineFocusAndFormat(t *testing.T) {
	m, _ := newTestModel(t, nil)
	m = keys(t, m, ":")
	m = typeText(t, m, "evidence focus colours")
	m = keys(t, m, "enter")
	if m.snap.Focus != "colours" || !strings.Contains(rowStates(m), "100_parse_go:off") || !strings.Contains(rowStates(m), "110_render_go:on") {
		t.Errorf("focus: %q %s (%s)", m.snap.Focus, rowStates(m), m.status)
	}
	m = keys(t, m, "esc", "f") // esc closes the answer; f again: focus off
	if m.snap.Focus != "" || strings.Contains(rowStates(m), ":off") {
		t.Errorf("focus off: %q %s", m.snap.Focus, rowStates(m))
	}
	m = keys(t, m, ":")
	m = typeText(t, m, "evidnce status")
	m = keys(t, m, "enter")
	if !m.statusErr || !strings.Contains(m.status, "did you mean /evidence") {
		t.Errorf("unknown command: %q", m.status)
	}
	m = keys(t, m, "m")
	if m.format != assemble.Aptix || !strings.HasPrefix(m.snap.Text, "[CONTEXT]\n\n=== CHUNK 1 ===") {
		t.Errorf("format: %s %q", m.format, m.snap.Text[:min(40, len(m.snap.Text))])
	}
	m = keys(t, m, ":")
	m = typeText(t, m, "evi")
	m = keys(t, m, "tab")
	if m.cmd.input.Value() != "/evidence " {
		t.Errorf("completion: %q", m.cmd.input.Value())
	}
}

func TestSearchOverlayAdds(t *testing.T) {
	// A file the flow does not hold yet: a span of one it holds whole is
	// already in the flow.
	fake := func(ctx context.Context, q search.Query, _ search.Graph) (search.Response, error) {
		return search.Response{Results: []search.Result{{Path: "parser/lex.go", StartLine: 3, EndLine: 6, Symbol: "Lex", Language: "go", Score: 0.9, Sources: []string{"text"}}}}, nil
	}
	m, root := newTestModel(t, fake)
	os.WriteFile(filepath.Join(root, "parser", "lex.go"), []byte("package parser\n\n// Lex splits input.\nfunc Lex(s string) []string {\n\treturn nil\n}\n"), 0o644)
	m = keys(t, m, "/")
	m = typeText(t, m, "parse")
	m = drive(t, m, func() tea.Msg { return searchTickMsg{m.search.seq} })
	if len(m.search.results) != 1 || !strings.Contains(m.View(), "parser/lex.go:3-6") {
		t.Fatalf("results: %+v\n%s", m.search.results, m.View())
	}
	m = keys(t, m, "enter")
	found := false
	for _, r := range m.snap.Rows {
		if strings.HasPrefix(r.ID, "120_lex_go_lex") && strings.HasPrefix(r.Found, "search:text 0.90") {
			found = true
		}
	}
	if !found {
		t.Errorf("search add: %s (%s)", rowStates(m), m.status)
	}
}

func TestSmallTerminalAndDeletedFlow(t *testing.T) {
	m, _ := newTestModel(t, nil)
	small := send(t, m, tea.WindowSizeMsg{Width: 50, Height: 10})
	if !strings.Contains(small.View(), "terminal too small: 50x10") {
		t.Errorf("small view:\n%s", small.View())
	}
	for _, size := range [][2]int{{60, 15}, {61, 16}, {240, 70}, {100, 30}} {
		v := send(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]}).View()
		lines := strings.Split(v, "\n")
		if len(lines) != size[1] {
			t.Errorf("%dx%d: %d lines", size[0], size[1], len(lines))
		}
		for i, l := range lines {
			if w := lipgloss.Width(l); w != size[0] {
				t.Errorf("%dx%d: line %d is %d wide: %q", size[0], size[1], i, w, l)
				break
			}
		}
	}
	os.RemoveAll(m.snap.Dir)
	m = send(t, m, flowChangedMsg{})
	if v := m.View(); !strings.Contains(v, "does not exist") && !strings.Contains(v, "gone from") {
		t.Errorf("deleted flow:\n%s", v)
	}
	m = keys(t, m, "space", "j", "x", "u")
	_ = fmt.Sprint(m.View())
}

// TestViewGolden pins the main layouts at a fixed size without colour.
func TestViewGolden(t *testing.T) {
	m, _ := newTestModel(t, nil)
	m = keys(t, m, "j")
	golden(t, "main", stripRoot(m.View(), m))
	golden(t, "assembled", stripRoot(keys(t, m, "v").View(), m))
	golden(t, "help", stripRoot(keys(t, m, "?").View(), m))
	golden(t, "command", stripRoot(typeText(t, keys(t, m, ":"), "evidence tog").View(), m))
	golden(t, "small", send(t, m, tea.WindowSizeMsg{Width: 40, Height: 10}).View())
	wide := send(t, m, tea.WindowSizeMsg{Width: 160, Height: 20})
	golden(t, "wide", stripRoot(wide.View(), m))
}

// stripRoot keeps temporary paths out of golden files.
func stripRoot(v string, m Model) string {
	return strings.ReplaceAll(v, m.opts.Root, "ROOT")
}

// TestViewGoldenColour pins the main layout with the dark palette in 256
// colours, so a change to the styles shows up as a diff.
func TestViewGoldenColour(t *testing.T) {
	m, _ := newTestModel(t, nil)
	r := lipgloss.NewRenderer(io_discard{})
	r.SetColorProfile(termenv.ANSI256)
	r.SetHasDarkBackground(true)
	m.styles = themes.NewStyles(r, themes.Dark(), false)
	m = keys(t, m, "j")
	golden(t, "main", m.View())
}

func TestAskShowsItsAnswer(t *testing.T) {
	m, _ := newTestModel(t, nil)
	m = keys(t, m, ":")
	m = typeText(t, m, "ask what evidence covers colours")
	m = keys(t, m, "enter")
	if !strings.Contains(m.View(), "Output") || !strings.Contains(m.View(), "110_render_go") {
		t.Errorf("ask answer not shown:\n%s", m.View())
	}
	m = keys(t, m, "esc")
	if m.output != "" || strings.Contains(m.View(), "Output ·") {
		t.Error("esc did not close the answer")
	}
	m = keys(t, m, "j", "space", ":")
	m = typeText(t, m, "undo")
	m = keys(t, m, "enter")
	if strings.Contains(rowStates(m), ":off") {
		t.Errorf("/undo: %s", rowStates(m))
	}
}

// TestReviewRegressionsUI pins fixes found in review.
func TestReviewRegressionsUI(t *testing.T) {
	empty := func(ctx context.Context, q search.Query, _ search.Graph) (search.Response, error) {
		return search.Response{}, nil
	}
	m, _ := newTestModel(t, empty)

	// Down and mark with no results do not index past the list.
	m = keys(t, m, "/")
	m = typeText(t, m, "zz")
	m = drive(t, m, func() tea.Msg { return searchTickMsg{m.search.seq} })
	m = send(t, m, tea.KeyMsg{Type: tea.KeyDown})
	m = send(t, m, tea.KeyMsg{Type: tea.KeyCtrlAt})
	m = keys(t, m, "enter")
	_ = m.View()
	if m.search.cursor != 0 || m.Fatal() != "" {
		t.Errorf("cursor %d, fatal %q", m.search.cursor, m.Fatal())
	}

	// A new action forgets redo.
	m = keys(t, m, "esc", "j", "space", "u")
	if len(m.redo) != 1 {
		t.Fatalf("redo after undo: %d", len(m.redo))
	}
	m = keys(t, m, "j", "p")
	if len(m.redo) != 0 {
		t.Errorf("redo kept after a new action: %d", len(m.redo))
	}

	// The first evidence part cannot move into the user's ranks.
	m = keys(t, m, "g", "j", "K")
	if !m.statusErr || !strings.Contains(m.status, "100_parse_go is the first evidence part") || !strings.Contains(rowStates(m), "100_parse_go") {
		t.Errorf("rank up past the request: %q %s", m.status, rowStates(m))
	}
	// The second moves to the head of the band though no rank is free
	// above the first (issue 32): the two swap ranks, the pin goes with
	// its part, and undo gives back the ids as they were.
	start := rowStates(m)
	m = keys(t, m, "j", "K")
	if got := rowStates(m); m.statusErr || !strings.Contains(got, "100_render_go:on+pin 110_parse_go:on") {
		t.Errorf("K on the second part: %q %s", m.status, got)
	}
	if r, _ := m.selected(); r.ID != "100_render_go" {
		t.Errorf("the cursor did not follow the part: on %s", r.ID)
	}
	m = keys(t, m, "u")
	if got := rowStates(m); got != start {
		t.Errorf("undo K:\n got %s\nwant %s (%q)", got, start, m.status)
	}
	if r, _ := m.selected(); r.ID != "110_render_go" {
		t.Errorf("the cursor did not follow the part back: on %s", r.ID)
	}
	m = keys(t, m, "ctrl+r")
	if got := rowStates(m); !strings.Contains(got, "100_render_go:on+pin 110_parse_go:on") {
		t.Errorf("redo K: %s (%q)", got, m.status)
	}

	// While a change is on its way, another one waits its turn (see
	// TestKeyBurstAppliesEveryKey): it is queued, not refused.
	next, _ := m.Update(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
	next, _ = next.(Model).Update(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}})
	if q := next.(Model).queue; len(q) != 2 {
		t.Errorf("a toggle while another is under way: %d queued (%q)", len(q), next.(Model).status)
	}
}

func TestListPaneAndScroller(t *testing.T) {
	var l listPane
	l.clamp(0, 5) // an empty list
	if l.cursor != 0 || l.top != 0 {
		t.Errorf("empty: %+v", l)
	}
	l.move(12, 20, 5) // off the bottom of the window
	if l.cursor != 12 || l.top != 8 {
		t.Errorf("down: %+v", l)
	}
	l.move(100, 20, 5)
	if l.cursor != 19 || l.top != 15 {
		t.Errorf("past the end: %+v", l)
	}
	l.clamp(3, 5) // the list shrank under the cursor: all three rows fit
	if l.cursor != 2 || l.top != 0 {
		t.Errorf("shrunk: %+v", l)
	}
	if _, ok := (listPane{cursor: 4}).at(make([]row, 2)); ok {
		t.Error("a cursor past the rows selects nothing")
	}
	var s scroller
	s.scroll(50, 30)
	s.scroll(-5, 30)
	if s.top != 25 {
		t.Errorf("scroll: %d", s.top)
	}
	s.scroll(-100, 30)
	if s.top != 0 {
		t.Errorf("scroll up: %d", s.top)
	}
}

// TestOutsideChangesAreSeen: another shell's edits and flow switches reach
// the workbench even when they race its own changes, and its commands
// never write over them.
func TestOutsideChangesAreSeen(t *testing.T) {
	m, root := newTestModel(t, nil)
	other := evidence.NewEngine(root)
	other.Getenv = func(string) string { return "" }
	ctx := context.Background()

	// Another shell pins a part; the workbench then toggles another one
	// before its watcher fires, then pins a third.
	if err := other.Exec(ctx, []string{"evidence", "pin", "100_parse_go"}, io_discard{}); err != nil {
		t.Fatal(err)
	}
	m = keys(t, m, "j", "j", "space")
	m = send(t, m, flowChangedMsg{})
	m = keys(t, m, "j", "p")
	if !strings.Contains(rowStates(m), "100_parse_go:on+pin") {
		t.Errorf("the other shell's pin was lost: %s", rowStates(m))
	}

	// Another shell switches flows: the workbench follows.
	if err := other.Exec(ctx, []string{"flow", "new", "second"}, io_discard{}); err != nil {
		t.Fatal(err)
	}
	m = send(t, m, flowChangedMsg{})
	if !strings.HasPrefix(m.snap.FlowID, "second-") || len(m.undo) != 0 {
		t.Errorf("after flow new elsewhere: flow %q, undo %d", m.snap.FlowID, len(m.undo))
	}
}

func TestFocusUndoReturnsToTheEarlierFocus(t *testing.T) {
	m, _ := newTestModel(t, nil)
	for _, q := range []string{"parse", "colours"} {
		m = keys(t, m, ":")
		m = typeText(t, m, "evidence focus "+q)
		m = keys(t, m, "enter")
	}
	if m.snap.Focus != "colours" {
		t.Fatalf("focus: %q (%s)", m.snap.Focus, m.status)
	}
	m = keys(t, m, "u")
	if m.snap.Focus != "parse" {
		t.Errorf("undo of the second focus: %q", m.snap.Focus)
	}
	m = keys(t, m, "f") // f turns focus off; u brings it back
	m = keys(t, m, "u")
	if m.snap.Focus != "parse" {
		t.Errorf("undo of focus off: %q", m.snap.Focus)
	}
}

// TestNoticeOnStatusLine: a notice from the config (an untrusted
// workspace's ignored settings) is on the status line once the flow is
// loaded.
func TestNoticeOnStatusLine(t *testing.T) {
	root, e := fixture(t)
	const notice = "ignoring [embed] base_url in .dossier.toml"
	m := New(Options{Root: root, Engine: e, Styles: testStyles(), Notice: notice})
	m.cmd.input.Cursor.SetMode(cursor.CursorStatic)
	m.search.input.Cursor.SetMode(cursor.CursorStatic)
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 100, Height: 30})
	if !m.statusErr || !strings.Contains(m.View(), notice) {
		t.Errorf("status %q (error %v); view lacks the notice", m.status, m.statusErr)
	}
}
