package helptopic

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Undocumented lists what root's command tree leaves undocumented: a
// command without a one-line Short or (when it runs) a Long help, a flag
// without a usage line, a topic whose name hides a command. Tests of each
// binary call it, so a new command or flag cannot ship without its
// reference; the manual pages are made from the same text.
func Undocumented(root *cobra.Command) []string {
	var missing []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		if c.Short == "" {
			missing = append(missing, fmt.Sprintf("%q has no Short help", c.CommandPath()))
		}
		if c.Runnable() && c.Long == "" && c.HasParent() {
			missing = append(missing, fmt.Sprintf("%q has no Long help", c.CommandPath()))
		}
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden && f.Usage == "" {
				missing = append(missing, fmt.Sprintf("flag --%s of %q has no usage line", f.Name, c.CommandPath()))
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, t := range Topics {
		for _, c := range root.Commands() {
			if c.Name() == t.Name && c.Runnable() {
				missing = append(missing, fmt.Sprintf("help topic %q hides the command %q", t.Name, c.CommandPath()))
			}
		}
	}
	return missing
}
