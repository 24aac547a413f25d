// Command dossier is a terminal workbench for curating the context that
// engineers send to LLMs.
package main

import (
	"os"
)

func main() {
	ctx, stop := interruptible(os.Stderr, os.Exit)
	code := execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
