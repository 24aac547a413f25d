// Command dossier-workbench is dossier's terminal workbench, the Bubble
// Tea front-end that `dossier` without a command opens on a terminal. It
// is a binary of its own so that the dossier binary, which every script,
// editor and agent runs for one-shot commands, does not pay the
// workbench's package init at every start.
package main

import (
	"github.com/dossierhq/dossier/cmd/internal/cli/cobracli"
	"github.com/dossierhq/dossier/cmd/internal/workbench"
)

func main() {
	cobracli.Main(workbench.NewCommand)
}
