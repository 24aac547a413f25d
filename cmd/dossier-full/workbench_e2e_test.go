//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmuxOrSkip is tmux's path, or skips an end-to-end terminal test (with
// -short, or without tmux).
func tmuxOrSkip(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end terminal test: skipped with -short")
	}
	path, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	return path
}

// TestWorkbenchE2E drives the workbench in a real terminal: tmux on a
// private server runs the test binary as dossier, the test types keys with
// send-keys and reads the screen with capture-pane. It walks through a
// session a user would have: search and add, add from the command line,
// toggle, focus and focus off, copy through OSC 52 into a tmux paste
// buffer, a hand edit picked up by the watcher, and quit.
//
// No flow is made beforehand: the workbench starting one named after the
// workspace directory is part of what is tested. The fixture lives in a
// directory with a fixed name so that the flow id is predictable up to its
// timestamp; the test reads the id from .dossier/flows/current.
//
// Every step waits for the screen (or the disk) to show its effect, never
// for a fixed time, so it holds on a slow machine.
func TestWorkbenchE2E(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	start := time.Now()

	root := filepath.Join(t.TempDir(), "e2ews")
	writeFile(t, root, "go.mod", "module example.com/e2ews\n\ngo 1.22\n")
	writeFile(t, root, "parser/parse.go", "package parser\n\nimport \"strings\"\n\n"+
		"// Parse splits a line into its fields.\nfunc Parse(line string) []string {\n\treturn strings.Fields(line)\n}\n")
	writeFile(t, root, "render/render.go", "package render\n\nimport \"strings\"\n\n"+
		"// Render joins fields with a bar.\nfunc Render(fields []string) string {\n\treturn strings.Join(fields, \" | \")\n}\n")
	writeFile(t, root, "store/store.go", "package store\n\n"+
		"// Save keeps a record in memory.\nfunc Save(m map[string]string, k, v string) {\n\tm[k] = v\n}\n")
	writeFile(t, root, "README.md", "# e2ews\n\nA tiny workspace.\n\n## Usage\n\nParse a line, then Render it.\n")
	cfgHome := t.TempDir() // no user config leaks in

	tm := startTmux(t, tmuxPath, root, cfgHome)

	// 1. The first frame with the flow loaded, and the background index
	// finishing. (Until the first snapshot arrives the title says
	// "(no flow)", so the flow's name is what to wait for.)
	scr := tm.waitFor("the flow loaded and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.HasPrefix(s.title(), "dossier · e2ews-") && strings.Contains(s.status(), "index up to date")
	})
	id, err := os.ReadFile(filepath.Join(root, ".dossier", "flows", "current"))
	if err != nil {
		t.Fatalf("the workbench made no current flow: %v\n%s", err, scr)
	}
	flowID := strings.TrimSpace(string(id))
	if !strings.HasPrefix(flowID, "e2ews-") {
		t.Errorf("flow id %q is not named after the workspace directory", flowID)
	}
	if !strings.Contains(scr.title(), "dossier · "+flowID+" · mdctx · ") {
		t.Fatalf("title does not name flow %s in mdctx:\n%s", flowID, scr)
	}
	if !strings.Contains(scr.text, "Evidence 0/0") || !strings.Contains(scr.text, "no parts yet") {
		t.Fatalf("a new flow should have an empty evidence list:\n%s", scr)
	}
	dir := flowDir(t, root)
	evDir := filepath.Join(dir, "ctx", "evidence")
	frame := scr.tokens(t)

	// 2. Search for Parse and add the first result.
	tm.keys("/")
	tm.waitFor("the search overlay", 0, func(s *screen) bool { return strings.Contains(s.text, "search: ") })
	tm.literal("Parse")
	tm.waitFor("a search result in parser/parse.go", 0, func(s *screen) bool {
		first, ok := s.firstResult()
		return ok && strings.Contains(first, "parser/parse.go:") && strings.HasSuffix(first, " Parse")
	})
	tm.keys("Enter")
	var parseID string
	scr = tm.waitFor("the search result added to the flow", 0, func(s *screen) bool {
		parseID = partID(evDir, "parse_go")
		r, ok := s.rows()[parseID]
		return parseID != "" && ok && r.active && strings.Contains(s.text, "Evidence 1/1") && s.tokens(t) > frame
	})
	if r := scr.rows()[parseID]; r.band != "crit" || !r.cursor {
		t.Errorf("the part from search should head the critical band under the cursor, got %+v:\n%s", r, scr)
	}
	// The watcher's snapshot can show the part before the add's own
	// answer, which brings the status, arrives: wait for that too.
	tm.waitFor("the add reported", 0, func(s *screen) bool { return strings.Contains(s.status(), "Added evidence") })
	withParse := scr.tokens(t)

	// 3. Add a file from the command line.
	tm.keys(":")
	tm.waitFor("the command line", 0, func(s *screen) bool { return strings.HasPrefix(s.bottom(), ":") })
	tm.literal("evidence add render/render.go")
	tm.waitFor("the typed command", 0, func(s *screen) bool {
		return strings.HasPrefix(s.bottom(), ":evidence add render/render.go")
	})
	tm.keys("Enter")
	var renderID string
	scr = tm.waitFor("render/render.go added to the flow", 0, func(s *screen) bool {
		renderID = partID(evDir, "render_go")
		r, ok := s.rows()[renderID]
		return renderID != "" && ok && r.active && strings.Contains(s.text, "Evidence 2/2") && s.tokens(t) > withParse
	})
	withBoth := scr.tokens(t)

	// 4. Move to the render row and toggle it off.
	tm.keys("j")
	tm.waitFor("the cursor on "+renderID, 0, func(s *screen) bool { return s.rows()[renderID].cursor })
	tm.keys("Space")
	scr = tm.waitFor(renderID+" skipped", 0, func(s *screen) bool {
		r, ok := s.rows()[renderID]
		return ok && !r.active && s.tokens(t) < withBoth && strings.Contains(s.text, "Evidence 1/2")
	})
	if scr.tokens(t) != withParse {
		t.Errorf("tokens after skipping %s: %d, want %d as before adding it", renderID, scr.tokens(t), withParse)
	}
	if _, err := os.Stat(filepath.Join(evDir, renderID+".evidence.md.skip")); err != nil {
		t.Errorf("the skipped part is not a .skip file on disk: %v\n%s", err, listDir(evDir))
	}

	// 5. Focus on "render": render comes back, parse is skipped; f again
	// restores both.
	tm.keys("f")
	tm.waitFor("the command line prefilled for focus", 0, func(s *screen) bool {
		return strings.HasPrefix(s.bottom(), ":/evidence focus")
	})
	tm.literal("render")
	tm.keys("Enter")
	tm.waitFor(`focus "render" in the title`, 0, func(s *screen) bool {
		rows := s.rows()
		return strings.Contains(s.title(), `focus "render"`) && rows[renderID].active && !rows[parseID].active
	})
	tm.keys("f")
	scr = tm.waitFor("focus off", 0, func(s *screen) bool {
		rows := s.rows()
		return !strings.Contains(s.title(), "focus") && strings.Contains(s.status(), "Focus off") &&
			rows[parseID].active && !rows[renderID].active
	})
	if scr.tokens(t) != withParse {
		t.Errorf("tokens after focus off: %d, want %d", scr.tokens(t), withParse)
	}

	// 6. Copy: OSC 52 lands in a tmux paste buffer equal to the built prompt.
	tm.keys("y")
	scr = tm.waitFor("the copy reported", 0, func(s *screen) bool {
		return strings.Contains(s.status(), "Copied mdctx via osc52")
	})
	promptPath := filepath.Join(dir, "build", "prompt.mdctx")
	want, err := os.ReadFile(promptPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(want), "func Parse(") || strings.Contains(string(want), "func Render(") {
		t.Errorf("prompt.mdctx should hold the active parse part only:\n%s", want)
	}
	if !strings.Contains(scr.status(), fmt.Sprintf("(%d bytes, ", len(want))) {
		t.Errorf("copy status %q does not give the prompt's %d bytes", scr.status(), len(want))
	}
	// The buffer is set when tmux parses the sequence, which comes before
	// the status line in the pane's output; poll anyway, it costs nothing.
	var got string
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, _ = tm.run("show-buffer")
		if got == string(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got != string(want) {
		t.Errorf("tmux paste buffer differs from %s\nbuffer (%d bytes):\n%q\nprompt (%d bytes):\n%q", promptPath, len(got), got, len(want), want)
	}

	// 7. A hand edit from another shell shows up by itself.
	edited := time.Now()
	if err := os.Rename(filepath.Join(evDir, parseID+".evidence.md"), filepath.Join(evDir, parseID+".evidence.md.skip")); err != nil {
		t.Fatal(err)
	}
	tm.waitFor("the hand-skipped "+parseID, 10*time.Second, func(s *screen) bool {
		r, ok := s.rows()[parseID]
		return ok && !r.active && strings.Contains(s.text, "Evidence 0/2") && s.tokens(t) == frame
	})
	lag := time.Since(edited)
	t.Logf("hand edit shown after %v", lag.Round(time.Millisecond))
	if lag > 5*time.Second {
		t.Errorf("the hand edit took %v to show", lag)
	}

	// 8. q quits cleanly: the shell around the workbench prints its exit
	// status once it has exited, then sleeps so the pane stays. (tmux's own
	// remain-on-exit and #{pane_dead_status} are not used: a tmux linked
	// with libutempter can miss the SIGCHLD of a pane process that exits as
	// its terminal closes, leaving a zombie and no status, tmux issue #311;
	// and the last output of a pane that exits at once can be lost.)
	tm.keys("q")
	final := tm.waitFor("the workbench to exit", 0, func(s *screen) bool {
		return strings.Contains(s.text, exitMarker)
	})
	tm.exited = true
	if !strings.Contains(final.text, exitMarker+"0.") {
		t.Fatalf("the workbench did not exit with status 0:\n%s", final)
	}
	for _, bad := range []string{"panic", "goroutine ", "dossier:", "crashed"} {
		if strings.Contains(final.text, bad) {
			t.Errorf("the terminal shows %q after quitting:\n%s", bad, final)
		}
	}
	t.Logf("end to end in %v", time.Since(start).Round(time.Millisecond))
}

// exitMarker precedes the workbench's exit status in the pane.
const exitMarker = "e2e: dossier exited with status "

// tmuxTerm is one dossier workbench in a pane of a private tmux server.
type tmuxTerm struct {
	t      *testing.T
	tmux   string
	socket string
	env    []string
	exited bool // the workbench was seen to exit
}

// startTmux starts a private tmux server with set-clipboard on and runs
// the workbench on root (or dossier with args, when given) in a 120x40
// pane, in a shell that reports its exit status and then sleeps, so the
// pane stays after it exits.
func startTmux(t *testing.T, tmuxPath, root, cfgHome string, args ...string) *tmuxTerm {
	t.Helper()
	return startTmuxEnv(t, tmuxPath, root, cfgHome, nil, args...)
}

// startTmuxEnv is startTmux with env (NAME=value) added to the
// workbench's environment.
func startTmuxEnv(t *testing.T, tmuxPath, root, cfgHome string, env []string, args ...string) *tmuxTerm {
	t.Helper()
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	tm := &tmuxTerm{t: t, tmux: tmuxPath, socket: fmt.Sprintf("dossier-e2e-%d-%d", os.Getpid(), time.Now().UnixNano())}
	// The server's environment becomes the pane's: no outer tmux, and no
	// display, so the clipboard's auto order goes to OSC 52. CI is left
	// out too: termenv takes a set CI for "no terminal" and draws without
	// colours, which no user's terminal does.
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "TMUX", "TMUX_PANE", "DISPLAY", "WAYLAND_DISPLAY", "STY", "FLOW_DIR", "NO_COLOR", "CI":
			continue
		}
		tm.env = append(tm.env, kv)
	}
	var panePID int
	var socketPath string
	t.Cleanup(func() {
		_, _ = tm.run("kill-server")
		if socketPath != "" {
			_ = os.Remove(socketPath) // tmux leaves it behind
		}
		if tm.exited || panePID <= 0 {
			return
		}
		// The test stopped midway and the temporary directories go
		// after this: the hangup ends the pane's process group (the
		// shell is its leader, the workbench in it); wait for that so
		// the workbench writes nothing into them meanwhile.
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if syscall.Kill(-panePID, 0) != nil {
				break
			}
		}
	})
	// A placeholder session starts the server, so the options are set
	// before the workbench runs.
	tm.mustRun("new-session", "-d", "-s", "setup", "-x", "120", "-y", "40")
	socketPath = strings.TrimSpace(tm.mustRun("display-message", "-p", "#{socket_path}"))
	tm.mustRun("set-option", "-g", "set-clipboard", "on")
	cmd := "env DOSSIER_AS_MAIN=1 TERM=xterm-256color "
	for _, kv := range env {
		cmd += shq(kv) + " "
	}
	cmd += "XDG_CONFIG_HOME=" + shq(cfgHome) +
		" XDG_CACHE_HOME=" + shq(cfgHome) + " " + shq(self) + " --root " + shq(root)
	for _, a := range args {
		cmd += " " + shq(a) // a command to run in the terminal instead of the workbench
	}
	cmd += "; echo \"" + exitMarker + "$?.\"; sleep 60"
	tm.mustRun("new-session", "-d", "-s", "e2e", "-x", "120", "-y", "40", "-c", root, cmd)
	tm.mustRun("kill-session", "-t", "setup")
	if out, err := tm.run("list-panes", "-t", "e2e", "-F", "#{pane_pid}"); err == nil {
		panePID, _ = strconv.Atoi(strings.TrimSpace(out))
	}
	return tm
}

func (tm *tmuxTerm) run(args ...string) (string, error) {
	cmd := exec.Command(tm.tmux, append([]string{"-L", tm.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = tm.env
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		err = fmt.Errorf("%v: %s", err, ee.Stderr)
	}
	return string(out), err
}

func (tm *tmuxTerm) mustRun(args ...string) string {
	tm.t.Helper()
	out, err := tm.run(args...)
	if err != nil {
		tm.t.Fatalf("tmux %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// keys sends key names (Enter, Space, Escape, or single characters).
func (tm *tmuxTerm) keys(keys ...string) {
	tm.t.Helper()
	tm.mustRun(append([]string{"send-keys", "-t", "e2e"}, keys...)...)
}

// literal types text as it is.
func (tm *tmuxTerm) literal(text string) {
	tm.t.Helper()
	tm.mustRun("send-keys", "-t", "e2e", "-l", text)
}

func (tm *tmuxTerm) capture() *screen { return tm.captureWith() }

// captureSGR is the screen with its attributes and colours as SGR
// sequences (capture-pane -e).
func (tm *tmuxTerm) captureSGR() *screen { return tm.captureWith("-e") }

func (tm *tmuxTerm) captureWith(flags ...string) *screen {
	tm.t.Helper()
	out, err := tm.run(append(append([]string{"capture-pane", "-p"}, flags...), "-t", "e2e")...)
	if err != nil {
		tm.t.Fatalf("capture-pane: %v", err)
	}
	return &screen{text: out}
}

// waitFor polls the screen every 50 ms until ok holds, failing with the
// last screen after timeout (10 s when zero).
func (tm *tmuxTerm) waitFor(what string, timeout time.Duration, ok func(*screen) bool) *screen {
	tm.t.Helper()
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	deadline := time.Now().Add(timeout)
	for {
		s := tm.capture()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("timed out after %v waiting for %s; the screen:\n%s", timeout, what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screen is one capture of the pane, without colours.
type screen struct{ text string }

func (s *screen) String() string { return s.text }

func (s *screen) lines() []string { return strings.Split(strings.TrimRight(s.text, "\n"), "\n") }

func (s *screen) title() string { return strings.TrimSpace(s.lines()[0]) }

// status is the line above the help or command line.
func (s *screen) status() string {
	l := s.lines()
	if len(l) < 2 {
		return ""
	}
	return strings.TrimSpace(l[len(l)-2])
}

// bottom is the help line, or the command line while it is open.
func (s *screen) bottom() string {
	l := s.lines()
	return strings.TrimSpace(l[len(l)-1])
}

var titleTokens = regexp.MustCompile(` · (\d+)/\d+ tokens \(`)

// tokens is the title's token count.
func (s *screen) tokens(t *testing.T) int {
	t.Helper()
	m := titleTokens.FindStringSubmatch(s.title())
	if m == nil {
		t.Fatalf("no token count in the title %q:\n%s", s.title(), s)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// listRow is one row of the evidence list as drawn.
type listRow struct {
	cursor, active bool
	band           string
}

// The list is the left pane: "│▸ crit [x] 100_parse_go_5_8 ...".
var rowLine = regexp.MustCompile(`^│(▸)? *([a-z]{4})? +\[([ x])\] (\S+)`)

// rows are the evidence list's rows by part id.
func (s *screen) rows() map[string]listRow {
	rows := map[string]listRow{}
	for _, l := range s.lines() {
		if m := rowLine.FindStringSubmatch(l); m != nil {
			rows[m[4]] = listRow{cursor: m[1] != "", band: m[2], active: m[3] == "x"}
		}
	}
	return rows
}

// A row: "│+● 0.90 parser/parse.go:6-8 Parse": + when marked for adding,
// ● or ○ when a part of the flow holds it.
var resultLine = regexp.MustCompile(`^│\+?[ ●○]* *\d+\.\d\d (\S+:\d+-\d+.*?)\s*│$`)

// firstResult is the search overlay's first (selected) result line.
func (s *screen) firstResult() (string, bool) {
	for _, l := range s.lines() {
		if m := resultLine.FindStringSubmatch(l); m != nil {
			return strings.TrimSpace(m[1]), true
		}
	}
	return "", false
}

// partID is the id of the part in dir whose name contains kind, "" when
// there is none yet.
func partID(dir, kind string) string {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		name := e.Name()
		if strings.Contains(name, kind) && strings.Contains(name, ".evidence.md") {
			name, _, _ = strings.Cut(name, ".evidence.md")
			return name
		}
	}
	return ""
}

func listDir(dir string) string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return strings.Join(names, "\n")
}

// shq quotes s for sh.
func shq(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
