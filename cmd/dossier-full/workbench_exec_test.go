//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/cmd/internal/exectest"
)

// TestWorkbenchExec: on a terminal, dossier without a command replaces
// itself (same pid, same terminal) with dossier-workbench, found through
// $DOSSIER_WORKBENCH, else next to dossier's executable with symlinks
// resolved, else on PATH; it hands on --root, --theme and --debug, and the
// workbench's exit code is dossier's. Without one it says how to get it;
// without a terminal dossier indexes in-process as before.
//
// The test binary plays dossier, as a copy in a bin/ directory, run
// through a symlink elsewhere; the workbench is a shell script that
// records what it was started with.
func TestWorkbenchExec(t *testing.T) {
	dir := t.TempDir()
	binDir := filepath.Join(dir, "bin")
	dossierBin := installSelf(t, binDir)
	link := filepath.Join(dir, "elsewhere", "dossier")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dossierBin, link); err != nil {
		t.Fatal(err)
	}
	emptyPath := filepath.Join(dir, "empty")
	if err := os.Mkdir(emptyPath, 0o755); err != nil {
		t.Fatal(err)
	}
	root := workspace(t, 1)
	record := filepath.Join(dir, "record")
	args := []string{"--root", root, "--theme", "dark", "--debug", "--workers", "2"}
	forwarded := []string{"--root=" + root, "--theme=dark", "--debug"}

	run := func(t *testing.T, path string, env ...string) (int, int, string) {
		t.Helper()
		os.Remove(record)
		cmd := exec.Command(link, args...)
		cmd.Env = append(exectest.EnvironWithout("DOSSIER_WORKBENCH", "PATH"), append([]string{"DOSSIER_AS_MAIN=1", "DOSSIER_TEST_EXEC_WORKBENCH=1", "PATH=" + path}, env...)...)
		code, out := exectest.RunOnTerminal(t, cmd)
		return code, cmd.Process.Pid, out
	}
	check := func(t *testing.T, code, pid int, out, stub string) {
		t.Helper()
		if code != 7 {
			t.Fatalf("exit %d, want the workbench's 7; output:\n%s", code, out)
		}
		got, err := os.ReadFile(record)
		if err != nil {
			t.Fatalf("the workbench did not run: %v; output:\n%s", err, out)
		}
		want := fmt.Sprintf("pid %d\narg %s\n", pid, stub)
		for _, a := range forwarded {
			want += "arg " + a + "\n"
		}
		want += "terminal\n"
		if string(got) != want {
			t.Errorf("the workbench recorded\n%s\nwant (same pid: exec; arguments; stdin and stdout the terminal)\n%s", got, want)
		}
	}

	t.Run("next to the executable", func(t *testing.T) {
		stub := exectest.WriteStub(t, filepath.Join(binDir, workbenchBin.Name), record)
		defer os.Remove(stub)
		// Another one on PATH loses to the one next to dossier.
		pathDir := filepath.Join(dir, "path1")
		exectest.WriteStub(t, filepath.Join(pathDir, workbenchBin.Name), record+".path")
		code, pid, out := run(t, pathDir)
		check(t, code, pid, out, stub)
	})
	t.Run("on PATH", func(t *testing.T) {
		stub := exectest.WriteStub(t, filepath.Join(dir, "path2", workbenchBin.Name), record)
		code, pid, out := run(t, emptyPath+":"+filepath.Dir(stub))
		check(t, code, pid, out, stub)
	})
	t.Run("DOSSIER_WORKBENCH", func(t *testing.T) {
		stub := exectest.WriteStub(t, filepath.Join(dir, "custom", "wb"), record)
		code, pid, out := run(t, emptyPath, "DOSSIER_WORKBENCH="+stub)
		check(t, code, pid, out, stub)
	})
	t.Run("DOSSIER_WORKBENCH missing", func(t *testing.T) {
		missing := filepath.Join(dir, "nowhere", "wb")
		code, _, out := run(t, emptyPath, "DOSSIER_WORKBENCH="+missing)
		if code != exitError || !strings.Contains(out, "DOSSIER_WORKBENCH="+missing+" is not the workbench's binary") {
			t.Errorf("exit %d, output:\n%s", code, out)
		}
	})
	t.Run("missing", func(t *testing.T) {
		code, _, out := run(t, emptyPath)
		for _, want := range []string{"dossier-workbench", binDir, "make build", "go install github.com/dossierhq/dossier/cmd/..."} {
			if !strings.Contains(out, want) {
				t.Errorf("the error lacks %q; exit %d, output:\n%s", want, code, out)
			}
		}
		if code != exitError {
			t.Errorf("exit %d, want %d", code, exitError)
		}
		if strings.Contains(out, "goroutine ") {
			t.Errorf("a Go trace:\n%s", out)
		}
	})
	t.Run("no terminal", func(t *testing.T) {
		stub := exectest.WriteStub(t, filepath.Join(binDir, workbenchBin.Name), record)
		defer os.Remove(stub)
		os.Remove(record)
		cmd := exec.Command(link, "--root", root)
		cmd.Env = append(os.Environ(), "DOSSIER_AS_MAIN=1", "DOSSIER_TEST_EXEC_WORKBENCH=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("dossier without a terminal: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "index   "+root) || !strings.Contains(string(out), "chunks  ") {
			t.Errorf("dossier without a terminal should index and print the summary, got:\n%s", out)
		}
		if _, err := os.Stat(record); err == nil {
			t.Error("dossier without a terminal ran the workbench")
		}
	})
}

// installSelf copies the test binary into dir as dossier (a hard link
// when it can).
func installSelf(t *testing.T, dir string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "dossier")
	if os.Link(self, dst) == nil {
		return dst
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, src); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}
