package main

import (
	"context"
	"io"
	"os"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/cmd/internal/sibling"
)

// workbenchBin is the workbench's binary: dossier does not link the
// workbench (its packages' init would slow every one-shot command), it
// execs this instead.
var workbenchBin = sibling.Workbench

// openWorkbench opens the workbench on root (--root as given). The test
// binary runs it in-process instead (workbench_inprocess_test.go).
var openWorkbench = execWorkbench

// execWorkbench replaces dossier with dossier-workbench (elsewhere than
// on unix, runs it with the terminal passed through and exits with its
// code), handing on --root and the workbench's flags.
func execWorkbench(_ context.Context, root string, flags cli.WorkbenchFlags, _ io.Writer) error {
	return workbenchBin.Exec(flags.Args(root), os.Environ())
}
