// Command dossier-full serves every dossier command: the one-shot dossier
// front answers `stats` and `search` itself and execs this binary, with the
// same arguments, for everything else. The workbench is the
// dossier-workbench binary, which dossier without a command execs on a
// terminal.
package main

import "github.com/dossierhq/dossier/cmd/internal/cli/cobracli"

func main() {
	cobracli.Main(newRootCmd)
}
