//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index/embed/embedtest"
	"github.com/dossierhq/dossier/store/config"
)

var stopSignals = map[syscall.Signal]string{syscall.SIGINT: "SIGINT", syscall.SIGTERM: "SIGTERM", syscall.SIGHUP: "SIGHUP"}

// TestStoppedBySignal stops each long-running command, as a process, by
// SIGINT, SIGTERM and SIGHUP while it waits (on an embeddings endpoint
// that never answers, for changes, for its client): each exits 128 + the
// signal and says which signal stopped it, as the README promises. (send
// has its own test, TestSendStoppedBySignal; ask and the flow commands
// never wait, and end through the same code.)
func TestStoppedBySignal(t *testing.T) {
	srv := embedtest.NewServer(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("TEST_EMBED_KEY", embedtest.Key)
	root := t.TempDir()
	writeFile(t, root, "billing/refund.go", "package billing\n\n// IssueRefund returns money to the card.\nfunc IssueRefund(amount int) error { return nil }\n")
	writeFile(t, root, ".dossier.toml", fmt.Sprintf("[embed]\nprovider = \"openai\"\nbase_url = %q\nmodel = %q\napi_key_env = \"TEST_EMBED_KEY\"\ntimeout = \"10m\"\nmax_retries = -1\n", srv.BaseURL(), embedtest.Model))
	if _, err := config.Trust(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	must(t, "index", "--root", root)

	// Each start returns the process once it waits where the signal
	// finds it.
	stalled := func(args ...string) func(t *testing.T, n int) (*exec.Cmd, *syncBuffer) {
		return func(t *testing.T, n int) (*exec.Cmd, *syncBuffer) {
			if args[0] == "index" { // something new to embed
				writeFile(t, root, fmt.Sprintf("billing/new%d.go", n), fmt.Sprintf("package billing\n\n// Fee%d is a fee.\nconst Fee%d = %d\n", n, n, n))
			}
			srv.Set(embedtest.Stall)
			cmd, errb, _ := startDossier(t, append(args, "--root", root)...)
			select {
			case <-srv.Arrived():
			case <-time.After(30 * time.Second):
				t.Fatalf("%v never reached the endpoint: %s", args, errb)
			}
			return cmd, errb
		}
	}
	cases := []struct {
		name  string
		start func(t *testing.T, n int) (*exec.Cmd, *syncBuffer)
		kept  bool // says that what was written is kept
	}{
		{"index", stalled("index"), true},
		{"search", stalled("search", "refund the card"), true},
		{"index --watch", func(t *testing.T, _ int) (*exec.Cmd, *syncBuffer) {
			srv.Set(embedtest.OK)
			cmd, errb, _ := startDossier(t, "index", "--watch", "--root", root)
			for deadline := time.Now().Add(30 * time.Second); !strings.Contains(errb.String(), "watching"); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the watch never started: %s", errb)
				}
			}
			return cmd, errb
		}, false},
		{"mcp", func(t *testing.T, _ int) (*exec.Cmd, *syncBuffer) {
			srv.Set(embedtest.OK)
			cmd, errb, out := startDossier(t, "mcp", "--root", root)
			if !out.Scan() || !strings.Contains(out.Text(), `"serverInfo"`) {
				t.Fatalf("no answer to initialize: %q %s", out.Text(), errb)
			}
			return cmd, errb
		}, false},
	}
	n := 0
	for _, c := range cases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
			t.Run(c.name+"/"+stopSignals[sig], func(t *testing.T) {
				n++
				cmd, errb := c.start(t, n)
				code := stopProcess(t, cmd, sig)
				want := "dossier: stopped by " + stopSignals[sig]
				if c.kept {
					want += "; everything written so far is kept"
				}
				// Stopped by itself, not ended by the backstop, which
				// exits the same way.
				if code != 128+int(sig) || !strings.Contains(errb.String(), want) || strings.Contains(errb.String(), "(ended:") {
					t.Errorf("exit %d, want %d with %q: %s", code, 128+int(sig), want, errb)
				}
			})
		}
	}
}

// startDossier starts dossier with args, its stderr collected and its
// stdout read line by line. Its stdin stays open (an MCP client's does)
// with an initialize request in it.
func startDossier(t *testing.T, args ...string) (*exec.Cmd, *syncBuffer, *bufio.Scanner) {
	t.Helper()
	cmd := dossier(args...)
	var errb syncBuffer
	cmd.Stderr = &errb
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		stdin.Close()
	})
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	return cmd, &errb, bufio.NewScanner(stdout)
}

// stopProcess signals cmd and returns its exit code, failing if the
// signal killed it unhandled.
func stopProcess(t *testing.T, cmd *exec.Cmd, sig syscall.Signal) int {
	t.Helper()
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("not ended 30 s after %v", sig)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		t.Fatalf("killed by %v: the signal was not handled", ws.Signal())
	}
	return ws.ExitStatus()
}

// TestNohupOutlivesTheTerminal: a command started with SIGHUP ignored
// (nohup, or a shell's `trap "" HUP`) keeps it ignored: the hangup does not
// stop it, the SIGTERM after it does.
func TestNohupOutlivesTheTerminal(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := workspace(t, 2)
	cmd := exec.Command("/bin/sh", "-c", `trap '' HUP; exec "$0" "$@"`, os.Args[0], "index", "--watch", "--root", root)
	cmd.Env = append(os.Environ(), "DOSSIER_AS_MAIN=1")
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(errb.String(), "watching"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the watch never started: %s", errb.String())
		}
	}
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if code := stopProcess(t, cmd, syscall.SIGTERM); code != 128+int(syscall.SIGTERM) || strings.Contains(errb.String(), "SIGHUP") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

// TestWorkbenchStoppedBySignal: the workbench, in a real terminal, ends on
// SIGTERM with 143 and on SIGHUP with 129, as every command does.
func TestWorkbenchStoppedBySignal(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(stopSignals[sig], func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "sigws")
			writeFile(t, root, "a.go", "package a\n")
			tm := startTmux(t, tmuxPath, root, t.TempDir())
			tm.waitFor("the workbench", 20*time.Second, func(s *screen) bool { return strings.HasPrefix(s.title(), "dossier · sigws-") })
			// The pane runs a shell that runs the workbench and then says
			// how it exited.
			shell := strings.TrimSpace(tm.mustRun("list-panes", "-t", "e2e", "-F", "#{pane_pid}"))
			children, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
			pid, _ := strconv.Atoi(strings.TrimSpace(string(children)))
			if err != nil || pid <= 0 {
				t.Skipf("the workbench's pid is not to be found here: %q %v", children, err)
			}
			if err := syscall.Kill(pid, sig); err != nil {
				t.Fatal(err)
			}
			tm.waitFor("the exit status", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
			tm.exited = true
			s := tm.capture()
			if !strings.Contains(s.text, fmt.Sprintf("%s%d.", exitMarker, 128+int(sig))) {
				t.Errorf("want exit %d:\n%s", 128+int(sig), s)
			}
			// The terminal is given back: the workbench's screen is gone
			// (a backstop exit left it in the alternate screen).
			if strings.Contains(s.text, "q quit") || strings.Contains(s.text, "Budget") {
				t.Errorf("the workbench's screen is still up after it exited:\n%s", s)
			}
		})
	}
}
