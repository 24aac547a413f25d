//go:build unix

package sibling

import (
	"fmt"
	"syscall"
)

func run(path string, argv, env []string, what string) error {
	err := syscall.Exec(path, argv, env)
	return fmt.Errorf("start %s %s: %w", what, path, err)
}
