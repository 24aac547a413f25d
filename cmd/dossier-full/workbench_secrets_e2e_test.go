//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// TestWorkbenchSecretsE2E drives the workbench in tmux (see
// TestWorkbenchE2E) on a workspace with a file of made-up credentials: no
// screen on the way, through adding the file, its preview, a search
// preview and a copy, shows one of them, and the copy that reaches tmux
// through OSC 52 carries the redaction markers instead.
func TestWorkbenchSecretsE2E(t *testing.T) {
	tmuxPath := tmuxOrSkip(t)
	root := filepath.Join(t.TempDir(), "e2esecrets")
	writeFile(t, root, "go.mod", "module example.com/e2esecrets\n\ngo 1.22\n")
	writeFile(t, root, "config/keys.go", secrettest.GoFile())
	tm := startTmux(t, tmuxPath, root, t.TempDir())

	// clean fails on a screen that shows the start of any secret's line;
	// the masks show four characters, so twelve are never shown.
	clean := func(s *screen) *screen {
		t.Helper()
		for _, secret := range secrettest.All() {
			for _, line := range strings.Split(secret, "\n") {
				if strings.Contains(s.text, line[:12]) {
					t.Fatalf("the screen shows %q:\n%s", line[:12], s)
				}
			}
		}
		return s
	}
	// watch is waitFor that checks every screen it sees on the way.
	watch := func(what string, timeout time.Duration, ok func(*screen) bool) *screen {
		t.Helper()
		return tm.waitFor(what, timeout, func(s *screen) bool { return ok(clean(s)) })
	}
	masked := `"AKIA…[REDACTED:aws-access-token]"`

	watch("the flow loaded and a finished index", 20*time.Second, func(s *screen) bool {
		return strings.HasPrefix(s.title(), "dossier · e2esecrets-") && strings.Contains(s.status(), "index up to date")
	})
	evDir := filepath.Join(flowDir(t, root), "ctx", "evidence")

	// Adding the file warns in full, and its preview masks every secret.
	tm.keys(":")
	watch("the command line", 0, func(s *screen) bool { return strings.HasPrefix(s.bottom(), ":") })
	tm.literal("evidence add config/keys.go")
	tm.keys("Enter")
	watch("the add's secret warning", 0, func(s *screen) bool {
		return partID(evDir, "keys_go") != "" && strings.Contains(s.text, "! secret in") &&
			strings.Contains(s.text, "config/keys.go:4 (aws-access-token)")
	})
	tm.keys("Escape")
	watch("the masked preview", 0, func(s *screen) bool {
		return strings.Contains(s.text, masked) && strings.Contains(s.text, "[REDACTED:private-key]")
	})

	// The search overlay's preview.
	tm.keys("/")
	watch("the search overlay", 0, func(s *screen) bool { return strings.Contains(s.text, "search: ") })
	tm.literal("awsKey")
	watch("a search result in config/keys.go with its masked preview", 0, func(s *screen) bool {
		first, ok := s.firstResult()
		return ok && strings.Contains(first, "config/keys.go:") && strings.Contains(s.text, masked)
	})
	tm.keys("Escape")
	watch("the search overlay closed", 0, func(s *screen) bool { return !strings.Contains(s.text, "search: ") })

	// Copy: the warning is shown, and the buffer holds markers.
	tm.keys("y")
	watch("the copy and its warning", 0, func(s *screen) bool {
		return strings.Contains(s.status(), "Copied mdctx via osc52") && strings.Contains(s.text, "! secret in")
	})
	var got string
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		got, _ = tm.run("show-buffer")
		if strings.Contains(got, "[REDACTED:") || time.Now().After(deadline) {
			break
		}
	}
	for _, rule := range secrettest.Rules {
		if !strings.Contains(got, "[REDACTED:"+rule+"]") {
			t.Errorf("the tmux buffer has no [REDACTED:%s]:\n%s", rule, got)
		}
	}
	for _, secret := range secrettest.All() {
		for _, line := range strings.Split(secret, "\n") {
			if strings.Contains(got, line) {
				t.Errorf("the tmux buffer holds %q", line)
			}
		}
	}
	if want, err := os.ReadFile(filepath.Join(flowDir(t, root), "build", "prompt.mdctx")); err != nil || string(want) != got {
		t.Errorf("the tmux buffer is not build/prompt.mdctx (%v)", err)
	}

	// Escape then q, apart: sent at once they read as alt+q.
	tm.keys("Escape")
	watch("the warning closed", 0, func(s *screen) bool { return !strings.Contains(s.text, "Output ·") })
	tm.keys("q")
	final := watch("the workbench to exit", 0, func(s *screen) bool { return strings.Contains(s.text, exitMarker) })
	tm.exited = true
	if !strings.Contains(final.text, exitMarker+"0.") {
		t.Fatalf("the workbench did not exit with status 0:\n%s", final)
	}
}
