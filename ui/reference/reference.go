// Package reference holds the workbench's user reference, keys.md: `dossier
// help keys`. It is a package of its own so that dossier-full prints it
// without linking the workbench (package ui); a test of package ui checks
// that it lists every binding of ui.KeyMap.
package reference

import _ "embed"

// Keys is the user reference of the workbench: its panes, keys and
// command line.
//
//go:embed keys.md
var Keys string
