package cli

import (
	"os"

	"github.com/spf13/pflag"
	"golang.org/x/term"
)

// WorkbenchFlags are the workbench's own flags: dossier without a command
// accepts them and hands them on to dossier-workbench, which takes the
// same.
type WorkbenchFlags struct {
	Theme string
	Debug bool
}

// Register adds the flags to a command's flags.
func (f *WorkbenchFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Theme, "theme", "", "workbench theme: auto, dark, light or high-contrast (default from config [ui] theme)")
	fs.BoolVar(&f.Debug, "debug", false, "log the workbench to $XDG_CACHE_HOME/dossier/debug.log")
}

// Args is the command line of dossier-workbench for root (--root as
// given, resolved by the workbench) and these flags.
func (f WorkbenchFlags) Args(root string) []string {
	var args []string
	if root != "" {
		args = append(args, "--root="+root)
	}
	if f.Theme != "" {
		args = append(args, "--theme="+f.Theme)
	}
	if f.Debug {
		args = append(args, "--debug")
	}
	return args
}

// IsTerminal reports whether the workbench can take over the terminal:
// stdin and stdout are both one.
func IsTerminal() bool {
	return term.IsTerminal(int(os.Stdin.Fd())) && term.IsTerminal(int(os.Stdout.Fd()))
}
