//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/cmd/internal/exectest"
)

// TestFrontOpensTheWorkbench: dossier alone on a terminal replaces itself
// with dossier-workbench, as dossier-full would (same pid, no arguments,
// the terminal handed on, its exit code), without dossier-full's start;
// with arguments, it goes through dossier-full, which hands the
// workbench's flags on.
func TestFrontOpensTheWorkbench(t *testing.T) {
	front := frontAlone(t)
	full := filepath.Join(binaries(t), "dossier-full")
	dir := t.TempDir()
	record := filepath.Join(dir, "record")
	stub := exectest.WriteStub(t, filepath.Join(filepath.Dir(front), "dossier-workbench"), record)
	root := t.TempDir()

	run := func(t *testing.T, env []string, args ...string) string {
		t.Helper()
		os.Remove(record)
		cmd := exec.Command(front, args...)
		cmd.Dir = root
		cmd.Env = append(exectest.EnvironWithout("DOSSIER_WORKBENCH", "DOSSIER_FULL"), append(env, "PATH="+t.TempDir())...)
		code, out := exectest.RunOnTerminal(t, cmd)
		if code != 7 {
			t.Fatalf("dossier %q: exit %d, want the workbench's 7; output:\n%s", args, code, out)
		}
		got, err := os.ReadFile(record)
		if err != nil {
			t.Fatalf("the workbench did not run: %v; output:\n%s", err, out)
		}
		return strings.Replace(string(got), fmt.Sprintf("pid %d\n", cmd.Process.Pid), "pid (dossier's)\n", 1)
	}
	// No dossier-full to go through: the front opens the workbench next
	// to it itself.
	if got, want := run(t, []string{"DOSSIER_FULL=" + filepath.Join(dir, "nowhere")}), "pid (dossier's)\narg "+stub+"\nterminal\n"; got != want {
		t.Errorf("dossier alone recorded\n%s\nwant\n%s", got, want)
	}
	if got, want := run(t, []string{"DOSSIER_FULL=" + full, "DOSSIER_WORKBENCH=" + stub}, "--root", root, "--theme", "dark"), "pid (dossier's)\narg "+stub+"\narg --root="+root+"\narg --theme=dark\nterminal\n"; got != want {
		t.Errorf("dossier --root --theme recorded\n%s\nwant (through dossier-full)\n%s", got, want)
	}
}
