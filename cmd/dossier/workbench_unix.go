//go:build unix

package main

import (
	"fmt"
	"syscall"
)

// runWorkbench replaces this process with the workbench, so that the
// terminal, signals and exit code are the workbench's own.
func runWorkbench(path string, argv, env []string) error {
	err := syscall.Exec(path, argv, env)
	return fmt.Errorf("start the workbench %s: %w", path, err)
}
