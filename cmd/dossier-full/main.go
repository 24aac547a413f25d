// Command dossier-full serves every dossier command: the one-shot dossier
// front answers `stats` and `search` itself and execs this binary, with the
// same arguments, for everything else. The workbench is the
// dossier-workbench binary, which dossier without a command execs on a
// terminal.
package main

import (
	"os"

	"github.com/dossierhq/dossier/cmd/internal/cli/cobracli"
	"github.com/dossierhq/dossier/cmd/internal/sibling"
)

func main() {
	// What this process starts (tools, the workbench, a dossier front)
	// is not handing on.
	os.Unsetenv(sibling.HandedOn)
	cobracli.Main(newRootCmd)
}
