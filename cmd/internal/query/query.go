// Package query holds the commands that read the index and nothing else,
// `stats` and `search`, for both dossier binaries: the one-shot front,
// which links only the store and the search engine so that it starts in a
// few milliseconds, and dossier-full, which serves every command.
package query

import (
	"fmt"
	"io"

	"github.com/dossierhq/dossier/store/config"
)

// Workspace resolves the workspace a command runs on (--root) and loads
// its config without printing the config's notices (cli.Workspace with no
// writer): the command prints them (printNotices) once it knows it answers
// the command line itself, so that a search handed on to dossier-full
// does not print them twice.
type Workspace func() (string, config.Config, error)

// IO is a command's standard input, output and error.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

// printNotices writes the config's notices (settings of an untrusted
// workspace that are ignored).
func printNotices(w io.Writer, cfg config.Config) {
	for _, n := range cfg.Notices {
		fmt.Fprintln(w, n)
	}
}
