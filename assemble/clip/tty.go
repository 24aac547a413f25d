package clip

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"golang.org/x/term"
)

// OpenTTY opens the controlling terminal for writing, for Options.TTY. It
// is the terminal rather than stdout so that OSC 52 still reaches the user
// when stdout is redirected. It fails when the process has no terminal
// (cron, CI, a pipe from ssh without -t); callers then leave Options.TTY nil.
func OpenTTY() (io.WriteCloser, error) {
	name := "/dev/tty"
	if runtime.GOOS == "windows" {
		name = "CONOUT$"
	}
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("clip: no terminal to write to: %w", err)
	}
	if !term.IsTerminal(int(f.Fd())) {
		_ = f.Close()
		return nil, errors.New("clip: " + name + " is not a terminal")
	}
	return f, nil
}
