package evidence

import (
	"fmt"

	"github.com/spf13/pflag"
)

// Help is the help of one engine command: its synopsis, summary and flags,
// what `dossier GROUP NAME --help` prints (group "" for a top-level word
// such as assemble). The CLI uses it as the command's long help, so the
// manual pages hold the same text. It is "" for an unknown command.
func Help(group, name string) string {
	c := lookup(group, name)
	if c == nil {
		return ""
	}
	return c.help()
}

// Undocumented lists the engine's commands without a summary and their
// flags without a usage line: the engine parses these flags itself, so the
// check of the cobra tree does not see them.
func Undocumented() []string {
	var missing []string
	for _, c := range commands {
		if c.summary == "" {
			missing = append(missing, fmt.Sprintf("%q has no summary", c.path()))
		}
		fs := pflag.NewFlagSet(c.name, pflag.ContinueOnError)
		if c.flags != nil {
			c.flags(fs, &opts{})
		}
		fs.VisitAll(func(f *pflag.Flag) {
			if f.Usage == "" {
				missing = append(missing, fmt.Sprintf("flag --%s of %q has no usage line", f.Name, c.path()))
			}
		})
	}
	return missing
}
