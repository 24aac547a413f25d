package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble/send/sendtest"
)

// press delivers one key and returns the command it asked for, not run.
func press(m Model, k string) (Model, tea.Cmd) {
	next, cmd := m.Update(keyMsg(k))
	return next.(Model), cmd
}

// TestSendWaitsForQueuedChanges: S while a toggle is still queued would
// send the flow as it was before the toggle the screen already shows; the
// send waits, says so, and goes once the toggle is applied, with the
// toggled part left out. (It was refused before, and a user who typed S
// right after a change saw nothing happen.)
func TestSendWaitsForQueuedChanges(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"ok\n"}})
	m := sendModel(t, srv)
	m, _ = press(m, "j")
	r, ok := m.selected()
	if !ok || !r.Active || r.Source == "" {
		t.Fatalf("no active source part selected: %+v", r)
	}
	m, toggle := press(m, "space")
	m, cmd := press(m, "S")
	if !strings.Contains(m.status, "sending once 1 change(s) are applied") {
		t.Errorf("status %q", m.status)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent while a change was queued", n)
	}
	m, again := press(m, "S") // a second S while it waits sends nothing more
	m = drive(t, m, tea.Batch(toggle, cmd, again))
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests once the queue was empty (status %q)", len(reqs), m.status)
	}
	if body := string(reqs[0].Body); strings.Contains(body, r.Source) || !strings.Contains(body, "docs/guide.md") {
		t.Errorf("the send did not wait for the toggle of %s: %s", r.Source, body)
	}
}

// TestQueuedSendDroppedOnFailedChange: a change that fails while a send
// waits for it leaves the flow other than the screen showed when S was
// typed: nothing is sent, and the status says so.
func TestQueuedSendDroppedOnFailedChange(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"ok\n"}})
	m := sendModel(t, srv)
	m, line := typeLine(t, m, "evidence add no/such/file.go")
	m, cmd := press(m, "S")
	m = drive(t, m, tea.Batch(line, cmd))
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests after a failed change", n)
	}
	if !strings.Contains(m.status, "not sent: S to send") {
		t.Errorf("status %q", m.status)
	}
}

// TestSendTwiceSendsOnce: S S in a burst (a double tap, a held key) sends
// one request, not two billed ones.
func TestSendTwiceSendsOnce(t *testing.T) {
	srv := sendtest.New(t, sendtest.Script{Chunks: []string{"ok\n"}})
	m := sendModel(t, srv)
	m, c1 := press(m, "S")
	m, c2 := press(m, "S")
	m = drive(t, m, tea.Batch(c1, c2))
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests for S S", n)
	}
	if _, err := os.Stat(filepath.Join(m.snap.Dir, "turns", "002.answer.md")); !os.IsNotExist(err) {
		t.Errorf("a second turn was kept: %v", err)
	}
}

// typeLine types a command line and presses enter without running what
// enter asks for; it returns that command.
func typeLine(t *testing.T, m Model, line string) (Model, tea.Cmd) {
	t.Helper()
	m = keys(t, m, ":")
	m = typeText(t, m, line)
	return press(m, "enter")
}

// TestFailedChangeKeepsLearnedUndo: a /request queued before a toggle
// that fails keeps its undo: history goes back to before the toggle with
// what the request learned since, not to a copy saved while it was
// still under way.
func TestFailedChangeKeepsLearnedUndo(t *testing.T) {
	m, _ := newTestModel(t, nil)
	dir := m.snap.Dir
	m, setReq := typeLine(t, m, "/request brand new")
	m, _ = press(m, "j")
	m, toggle := press(m, "space")
	if err := os.Remove(filepath.Join(dir, "ctx", "evidence", "100_parse_go.evidence.md")); err != nil {
		t.Fatal(err)
	}
	m = drive(t, m, tea.Batch(setReq, toggle))
	if !m.statusErr {
		t.Fatalf("the toggle did not fail: %q", m.status)
	}
	m = keys(t, m, "u")
	if got := partText(t, dir, "ctx/010_request.user.md"); got != "Fix parsing.\n" {
		t.Errorf("undo: request %q (status %q)", got, m.status)
	}
}

// TestFailedChangeKeepsUnrelatedCommands: a command line typed after a
// toggle that fails does not depend on the rows and still runs.
func TestFailedChangeKeepsUnrelatedCommands(t *testing.T) {
	m, _ := newTestModel(t, nil)
	dir := m.snap.Dir
	m, _ = press(m, "j")
	m, toggle := press(m, "space")
	if err := os.Remove(filepath.Join(dir, "ctx", "evidence", "100_parse_go.evidence.md")); err != nil {
		t.Fatal(err)
	}
	m, setReq := typeLine(t, m, "/request typed after the toggle")
	m = drive(t, m, tea.Batch(toggle, setReq))
	if got := partText(t, dir, "ctx/010_request.user.md"); got != "typed after the toggle\n" {
		t.Errorf("request %q (status %q)", got, m.status)
	}
	m = keys(t, m, "u")
	if got := partText(t, dir, "ctx/010_request.user.md"); got != "Fix parsing.\n" {
		t.Errorf("undo: request %q (status %q)", got, m.status)
	}
}
