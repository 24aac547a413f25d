package main

import (
	"os"

	"github.com/dossierhq/dossier/cmd/internal/workbench"
)

// The test binary doubles as dossier (DOSSIER_AS_MAIN) in the terminal
// tests and opens the workbench in-process, as dossier-workbench does, so
// they need no second binary. DOSSIER_TEST_EXEC_WORKBENCH=1 keeps the
// dossier binary's own path, the exec of dossier-workbench
// (TestWorkbenchExec).
func init() {
	if os.Getenv("DOSSIER_TEST_EXEC_WORKBENCH") != "1" {
		openWorkbench = workbench.Open
	}
}
