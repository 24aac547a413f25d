// Command dossier is a terminal workbench for curating the context that
// engineers send to LLMs. The workbench itself is the dossier-workbench
// binary, which dossier without a command execs on a terminal.
package main

import "github.com/dossierhq/dossier/cmd/internal/cli"

func main() {
	cli.Main(newRootCmd)
}
