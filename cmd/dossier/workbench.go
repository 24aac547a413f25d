package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/dossierhq/dossier/cmd/internal/cli"
)

// workbenchBin is the workbench's binary: dossier does not link the
// workbench (its packages' init would slow every one-shot command), it
// execs this instead.
const workbenchBin = "dossier-workbench"

// openWorkbench opens the workbench on root (--root as given). The test
// binary runs it in-process instead (workbench_inprocess_test.go).
var openWorkbench = execWorkbench

// execWorkbench replaces dossier with dossier-workbench (elsewhere than
// on unix, runs it with the terminal passed through and exits with its
// code), handing on --root and the workbench's flags.
func execWorkbench(_ context.Context, root string, flags cli.WorkbenchFlags, _ io.Writer) error {
	path, err := findWorkbench()
	if err != nil {
		return err
	}
	return runWorkbench(path, append([]string{path}, flags.Args(root)...), os.Environ())
}

// findWorkbench is the path of dossier-workbench: $DOSSIER_WORKBENCH when
// set, else the one next to this executable (symlinks resolved), else the
// one on PATH.
func findWorkbench() (string, error) {
	name := workbenchBin
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if p := os.Getenv("DOSSIER_WORKBENCH"); p != "" {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", fmt.Errorf("DOSSIER_WORKBENCH=%s is not the workbench's binary: point it at dossier-workbench, or unset it to use the one next to dossier or on PATH", p)
		}
		return p, nil
	}
	self, err := os.Executable()
	if err == nil {
		self, err = filepath.EvalSymlinks(self)
	}
	if err == nil {
		p := filepath.Join(filepath.Dir(self), name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, nil
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("the workbench %s: %w", p, err)
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	where := "on PATH"
	if self != "" {
		where = "in " + filepath.Dir(self) + " (next to dossier) or on PATH"
	}
	return "", fmt.Errorf("the workbench is the separate binary %s, which is not %s: build both into bin/ with `make build`, or install both with `go install github.com/dossierhq/dossier/cmd/...`", name, where)
}
