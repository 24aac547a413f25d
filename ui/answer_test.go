package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	sendapi "github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/assemble/send/sendtest"
	"github.com/dossierhq/dossier/evidence"
)

// sendModel is the test workbench with its engine sending to srv.
func sendModel(t testing.TB, srv *sendtest.Server) Model {
	t.Helper()
	m, _ := newTestModel(t, nil)
	m.opts.Engine.LLM = evidence.LLMConfig{Config: sendapi.Config{BaseURL: srv.URL, Model: "gpt-4o-mini", MaxRetries: -1, Timeout: 10 * time.Second}}
	return m
}

// TestRequestAndPolicyAreUndoable: /request TEXT replaces the request,
// /policy TEXT adds the policy, and u takes back each.
func TestRequestAndPolicyAreUndoable(t *testing.T) {
	m, _ := newTestModel(t, nil)
	dir := m.snap.Dir
	m = keys(t, m, ":")
	m = typeText(t, m, `/request fix the "lexer" too`)
	m = keys(t, m, "enter")
	if got := partText(t, dir, "ctx/010_request.user.md"); got != "fix the lexer too\n" {
		t.Errorf("request %q (status %q)", got, m.status)
	}
	m = keys(t, m, ":")
	m = typeText(t, m, `/policy "- Answer briefly."`)
	m = keys(t, m, "enter")
	if got := partText(t, dir, "ctx/000_policy.system.md"); got != "- Answer briefly.\n" {
		t.Errorf("policy %q (status %q)", got, m.status)
	}
	if r, ok := m.textRow("policy"); !ok || r.ID != "000_policy" {
		t.Errorf("no policy row: %v", m.snap.Rows)
	}
	m = keys(t, m, "u")
	if _, err := os.Stat(filepath.Join(dir, "ctx", "000_policy.system.md")); !os.IsNotExist(err) {
		t.Errorf("undo left the policy: %v (status %q)", err, m.status)
	}
	m = keys(t, m, "u")
	if got := partText(t, dir, "ctx/010_request.user.md"); got != "Fix parsing.\n" {
		t.Errorf("undo: request %q (status %q)", got, m.status)
	}
	m = keys(t, m, "ctrl+r")
	if got := partText(t, dir, "ctx/010_request.user.md"); got != "fix the lexer too\n" {
		t.Errorf("redo: request %q (status %q)", got, m.status)
	}
	// The engine's words do the same, also undoably.
	m = keys(t, m, ":")
	m = typeText(t, m, "/flow set request one more time")
	m = keys(t, m, "enter", "u")
	if got := partText(t, dir, "ctx/010_request.user.md"); got != "fix the lexer too\n" {
		t.Errorf("undo of flow set: request %q (status %q)", got, m.status)
	}
}

// TestSendStreamsFollowsUpAndBrowses: S sends the flow, the answer is
// shown (rendered once done), a follow-up is turn 2, [ goes back to
// turn 1, y copies it, and a digit adds a reference it mentions.
func TestSendStreamsFollowsUpAndBrowses(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"The fix is in ", "`render/render.go`", ": **Render** joins ", "with a bar.\n"}})
	m := sendModel(t, srv)
	m = keys(t, m, "S")
	if !m.ans.open || len(m.ans.turns) != 1 {
		t.Fatalf("no turn after S: open %v, turns %d, status %q", m.ans.open, len(m.ans.turns), m.status)
	}
	v := m.View()
	for _, want := range []string{"Answer · turn 1 of 1 · gpt-4o-mini", "The fix is in", "References", "1 render/render.go  (in the flow as 110_render_go)"} {
		if !strings.Contains(v, want) {
			t.Errorf("the view lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "`render/render.go`") || !strings.Contains(v, "render/render.go: ") {
		t.Errorf("the answer is not rendered as Markdown:\n%s", v)
	}
	srv.SetScript(sendtest.Script{Text: "Then also see docs/guide.md and parser/parse.go:4 for the errors."})
	m = keys(t, m, ":")
	m = typeText(t, m, "/followup and the parser?")
	m = keys(t, m, "enter")
	if len(m.ans.turns) != 2 || m.ans.cur != 1 {
		t.Fatalf("no turn 2: %d turns, showing %d, status %q", len(m.ans.turns), m.ans.cur, m.status)
	}
	if got := m.ans.turns[1].Asked(); !strings.Contains(got, "and the parser?") {
		t.Errorf("turn 2 asked %q", got)
	}
	v = m.View()
	if !strings.Contains(v, "turn 2 of 2") || !strings.Contains(v, "Then also see") {
		t.Errorf("turn 2 not shown:\n%s", v)
	}
	// docs/guide.md is in the flow; parser/parse.go:4 is within its whole-file part too.
	if !strings.Contains(v, "1 docs/guide.md  (in the flow as 200_guide_md)") {
		t.Errorf("refs of turn 2:\n%s", v)
	}
	m = keys(t, m, "[")
	if v := m.View(); !strings.Contains(v, "turn 1 of 2") {
		t.Errorf("[ does not go back:\n%s", v)
	}
	m = keys(t, m, "y")
	if got := readFile(t, filepath.Join(m.snap.Dir, "build", "answer.txt")); !strings.HasPrefix(got, "The fix is in `render/render.go`") {
		t.Errorf("copied %q (status %q)", got, m.status)
	}
	if len(srv.Requests()) != 2 {
		t.Errorf("%d requests", len(srv.Requests()))
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestSendAddsAReference: a digit adds the reference as evidence through
// `evidence add`, and u removes it again.
func TestSendAddsAReference(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Text: "Look at extra/util.go:2 first."})
	m := sendModel(t, srv)
	os.MkdirAll(filepath.Join(m.opts.Root, "extra"), 0o755)
	os.WriteFile(filepath.Join(m.opts.Root, "extra", "util.go"), []byte("package extra\n\nfunc Util() {}\n"), 0o644)
	m = keys(t, m, "S")
	if v := m.View(); !strings.Contains(v, "1 extra/util.go::1,3") {
		t.Fatalf("no reference:\n%s", v)
	}
	n := len(m.snap.Rows)
	m = keys(t, m, "1")
	if len(m.snap.Rows) != n+1 || !strings.Contains(m.View(), "1 extra/util.go::1,3  (in the flow as") {
		t.Fatalf("not added: %d rows, status %q", len(m.snap.Rows), m.status)
	}
	m = keys(t, m, "u")
	if len(m.snap.Rows) != n {
		t.Errorf("undo left %d rows (status %q)", len(m.snap.Rows), m.status)
	}
}

// TestSendCancelKeepsThePartial: esc while the answer streams cancels it;
// what arrived is kept as an incomplete turn.
func TestSendCancelKeepsThePartial(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"partial ", "answer"}, Stall: true, StallAfter: 1})
	m := sendModel(t, srv)
	next, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("S")})
	m = next.(Model)
	// Run the commands by hand until the first text is on screen.
	next, cmd = m.Update(findMsg[sendReadyMsg](t, cmd))
	m = next.(Model)
	next, read := m.Update(findMsg[streamMsg](t, cmd))
	m = next.(Model)
	if !strings.Contains(m.View(), "partial") || !strings.Contains(m.View(), "streaming") {
		t.Fatalf("not streaming:\n%s", m.View())
	}
	m = keys(t, m, "esc")
	m = drive(t, m, read)
	if len(m.ans.turns) != 1 || m.ans.turns[0].Status != "incomplete" || m.ans.turns[0].Reason != "cancelled" || strings.TrimSpace(m.ans.turns[0].Text) != "partial" {
		t.Fatalf("turns %+v, status %q", m.ans.turns, m.status)
	}
	if !strings.Contains(m.View(), "incomplete (cancelled)") {
		t.Errorf("not marked incomplete:\n%s", m.View())
	}
}

// TestSendWithoutEndpoint: with no [llm] the send says what to set.
func TestSendWithoutEndpoint(t *testing.T) {
	m, _ := newTestModel(t, nil)
	m = keys(t, m, "S")
	if !m.statusErr || !strings.Contains(m.status, "llm") {
		t.Errorf("status %q", m.status)
	}
}

// findMsg runs cmd (and the commands of a batch) until one returns a T.
func findMsg[T tea.Msg](t testing.TB, cmd tea.Cmd) T {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case T:
			return msg
		case tea.BatchMsg:
			queue = append(queue, msg...)
		}
	}
	var zero T
	t.Fatalf("no %T among the commands", zero)
	return zero
}

// TestQuitWhileStreamingKeepsThePartial: quitting while an answer
// streams in cancels it and waits until the partial is kept.
func TestQuitWhileStreamingKeepsThePartial(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"half ", "done"}, Stall: true, StallAfter: 1})
	m := sendModel(t, srv)
	next, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("S")})
	m = next.(Model)
	next, cmd = m.Update(findMsg[sendReadyMsg](t, cmd))
	m = next.(Model)
	next, _ = m.Update(findMsg[streamMsg](t, cmd))
	m = next.(Model)
	m.StopSend()
	raw, err := os.ReadFile(filepath.Join(m.snap.Dir, "turns", "001.answer.md"))
	if err != nil || !strings.Contains(string(raw), "half") || !strings.Contains(string(raw), "incomplete") {
		t.Errorf("the partial was not kept: %v\n%s", err, raw)
	}
}

// TestLiveTextWrapsAsAWhole: streamed in deltas of any size, the answer
// wraps to the same lines as the whole text wrapped at once, and a line
// still being written past the piece size is shown whole (in pieces).
func TestLiveTextWrapsAsAWhole(t *testing.T) {
	text := longAnswer(3000) + "tail without a newline"
	for _, step := range []int{1, 7, 256, len(text)} {
		l := newLiveText(60)
		for off := 0; off < len(text); off += step {
			l.append(text[off:min(len(text), off+step)])
		}
		if got, want := strings.Join(l.lines, "\n"), strings.Join(wrapText(text, 60), "\n"); got != want {
			t.Errorf("step %d: lines differ", step)
		}
		l.resize(40)
		if got, want := strings.Join(l.lines, "\n"), strings.Join(wrapText(text, 40), "\n"); got != want {
			t.Errorf("step %d: resized lines differ", step)
		}
	}
	long := strings.Repeat("wörd ", 5000) // 30 kB with no newline
	l := newLiveText(80)
	for off := 0; off < len(long); off += 5 {
		l.append(long[off : off+5])
	}
	if got := strings.ReplaceAll(strings.Join(l.lines, ""), " ", ""); got != strings.ReplaceAll(long, " ", "") {
		t.Errorf("the long line lost text: %d runes shown of %d", len([]rune(got)), len([]rune(strings.ReplaceAll(long, " ", ""))))
	}
	for _, line := range l.lines {
		if w := len([]rune(line)); w > 80 {
			t.Fatalf("a line of %d cells: %q", w, line)
		}
	}
	l.append("\n")
	if got, want := strings.Join(l.lines, "\n"), strings.Join(wrapText(long+"\n", 80), "\n"); got != want {
		t.Errorf("the finished long line is not wrapped whole")
	}
}
