//go:build !unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// runWorkbench runs the workbench with the terminal passed through and
// ends with its exit code (there is no exec here).
func runWorkbench(path string, argv, env []string) error {
	// The console's interrupt reaches the workbench too, which handles it.
	signal.Ignore(os.Interrupt)
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return errReported{ee.ExitCode()}
	case err != nil:
		return fmt.Errorf("start the workbench %s: %w", path, err)
	}
	return nil
}
