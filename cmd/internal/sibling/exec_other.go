//go:build !unix

package sibling

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
)

// exitCode ends the process with the code of the binary that ran.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }
func (e exitCode) ExitCode() int { return int(e) }

func run(path string, argv, env []string, what string) error {
	// The console's interrupt reaches the binary too, which handles it.
	signal.Ignore(os.Interrupt)
	cmd := exec.Command(path, argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = os.Stdin, os.Stdout, os.Stderr, env
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return exitCode(ee.ExitCode())
	case err != nil:
		return fmt.Errorf("start %s %s: %w", what, path, err)
	}
	return nil
}
