//go:build unix

package clip

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// helperResult is what TestTmuxHelperProcess reports back from inside tmux.
type helperResult struct {
	Report Report
	Err    string
}

// TestTmuxHelperProcess is not a test of its own: TestRealTmux runs the test
// binary inside a tmux pane with this test selected, and it copies with the
// real environment, terminal, tmux and LookPath, as dossier would.
func TestTmuxHelperProcess(t *testing.T) {
	dir := os.Getenv("DOSSIER_CLIP_TMUX_HELPER")
	if dir == "" {
		t.Skip("runs inside tmux for TestRealTmux")
	}
	var res helperResult
	payload, err := os.ReadFile(filepath.Join(dir, "payload"))
	if err == nil {
		var tty interface {
			Write([]byte) (int, error)
			Close() error
		}
		tty, err = OpenTTY()
		if err == nil {
			res.Report, err = Copy(context.Background(), payload, Options{TTY: tty, File: filepath.Join(dir, "clipboard.txt")})
			_ = tty.Close()
		}
	}
	if err != nil {
		res.Err = err.Error()
	}
	b, _ := json.Marshal(res)
	// Written whole and renamed, so the waiting test never reads half.
	if err := os.WriteFile(filepath.Join(dir, "result.tmp"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "result.tmp"), filepath.Join(dir, "result.json")); err != nil {
		t.Fatal(err)
	}
	// Stay alive until the test has read tmux's buffer: a pane whose
	// process exits at once may be torn down before tmux has read what it
	// wrote. The test kills the server when it is done.
	for i := 0; i < 600; i++ {
		if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRealTmux runs Copy in a detached tmux session and reads what tmux
// made of it: with set-clipboard on, plain OSC 52 must land in tmux's paste
// buffer; with tmux's default (external), Copy must not count on OSC 52 and
// must use the file.
func TestRealTmux(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("tmux is not installed")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var payload bytes.Buffer
	for i := 0; payload.Len() < 20_000; i++ {
		fmt.Fprintf(&payload, "line %d: fn main() { println!(\"ünïcode ✓\"); }\t// \"quotes\" and $vars\n", i)
	}
	for _, tc := range []struct {
		setClipboard string
		wantMethod   string
	}{
		{"on", MethodOSC52},
		{"external", MethodFile},
	} {
		t.Run("set-clipboard "+tc.setClipboard, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "payload"), payload.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			conf := filepath.Join(dir, "tmux.conf")
			// remain-on-exit keeps the session, and so the server and its
			// buffers, after the helper exits.
			confText := "set -g set-clipboard " + tc.setClipboard + "\nset -g remain-on-exit on\n"
			if err := os.WriteFile(conf, []byte(confText), 0o644); err != nil {
				t.Fatal(err)
			}
			// A private socket, in a short path (sockets have a ~100-byte
			// limit) that goes away with the test: tmux leaves it behind.
			sockDir, err := os.MkdirTemp("", "dclip")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
			socket := filepath.Join(sockDir, "s")
			run := func(args ...string) (string, error) {
				cmd := exec.Command(tmux, append([]string{"-S", socket}, args...)...)
				cmd.Env = helperEnv(dir)
				out, err := cmd.CombinedOutput()
				return string(out), err
			}
			command := shellQuote(exe) + " -test.run='^TestTmuxHelperProcess$' -test.count=1"
			if out, err := run("-f", conf, "new-session", "-d", "-x", "100", "-y", "30", command); err != nil {
				t.Fatalf("tmux new-session: %v: %s", err, out)
			}
			t.Cleanup(func() {
				_ = os.WriteFile(filepath.Join(dir, "done"), nil, 0o644)
				_, _ = run("kill-server")
			})

			res := waitResult(t, dir, run)
			if res.Err != "" {
				t.Fatalf("Copy inside tmux failed: %s", res.Err)
			}
			if res.Report.Method != tc.wantMethod {
				t.Fatalf("inside tmux Copy used %q (warnings %q), want %q", res.Report.Method, res.Report.Warnings, tc.wantMethod)
			}
			// tmux reads the pane's output on its own schedule: the helper
			// can report before the buffer exists, so poll for it.
			buf, bufErr := run("show-buffer")
			for deadline := time.Now().Add(10 * time.Second); tc.wantMethod == MethodOSC52 && buf != payload.String() && time.Now().Before(deadline); {
				time.Sleep(50 * time.Millisecond)
				buf, bufErr = run("show-buffer")
			}
			switch tc.wantMethod {
			case MethodOSC52:
				if bufErr != nil || buf != payload.String() {
					t.Errorf("tmux buffer holds %d bytes (%v), want the %d-byte payload", len(buf), bufErr, payload.Len())
				}
				if len(res.Report.Warnings) != 0 {
					t.Errorf("warnings = %q", res.Report.Warnings)
				}
			case MethodFile:
				if bufErr == nil {
					t.Errorf("tmux made a buffer of %d bytes although it should have dropped OSC 52", len(buf))
				}
				if b := readFile(t, res.Report.Path); !bytes.Equal(b, payload.Bytes()) {
					t.Error("the fallback file does not hold the payload")
				}
				if len(res.Report.Warnings) != 1 || !strings.Contains(res.Report.Warnings[0], "set-clipboard is external") {
					t.Errorf("warnings = %q, want one about set-clipboard", res.Report.Warnings)
				}
			}
		})
	}
}

// waitResult waits for the helper's report. The bound only turns a helper
// that never ran into a failure; it asserts nothing about speed.
func waitResult(t *testing.T, dir string, run func(...string) (string, error)) helperResult {
	t.Helper()
	path := filepath.Join(dir, "result.json")
	for i := 0; i < 1200; i++ {
		if b, err := os.ReadFile(path); err == nil {
			var res helperResult
			if err := json.Unmarshal(b, &res); err != nil {
				t.Fatalf("helper result: %v", err)
			}
			return res
		}
		time.Sleep(50 * time.Millisecond)
	}
	screen, _ := run("capture-pane", "-p")
	t.Fatalf("the helper inside tmux reported nothing; its pane shows:\n%s", screen)
	return helperResult{}
}

// helperEnv is this process's environment without what would change the
// helper's choice (an outer tmux, SSH, a display), plus the helper's dir.
func helperEnv(dir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "TMUX", "TMUX_PANE", "STY", "SSH_TTY", "SSH_CONNECTION", "SSH_CLIENT", "DISPLAY", "WAYLAND_DISPLAY":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "DOSSIER_CLIP_TMUX_HELPER="+dir)
}

// shellQuote quotes s for sh, which tmux runs the session command with.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
