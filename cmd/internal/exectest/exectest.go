//go:build linux

// Package exectest runs dossier's binaries the way a user's shell does,
// for tests: on a pseudo-terminal, with a stand-in for the binary they
// exec.
package exectest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// WriteStub writes a workbench that records its pid, its arguments and
// whether stdin and stdout are a terminal into record, and exits 7.
func WriteStub(t testing.TB, path, record string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\ntty=\nif [ -t 0 ] && [ -t 1 ]; then tty=terminal; fi\n" +
		"{\n\techo \"pid $$\"\n\tfor a in \"$0\" \"$@\"; do echo \"arg $a\"; done\n\techo \"$tty\"\n} > " + shq(record) + "\nexit 7\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// EnvironWithout is the environment without the named variables.
func EnvironWithout(names ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			keep = keep && name != n
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// RunOnTerminal runs cmd with a new pseudo-terminal as its stdin, stdout
// and stderr, and returns its exit code and what it wrote there.
func RunOnTerminal(t testing.TB, cmd *exec.Cmd) (int, string) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	var unlock int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, ptm.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); errno != 0 {
		t.Fatalf("unlock the pseudo-terminal: %v", errno)
	}
	var n uint32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, ptm.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("pseudo-terminal number: %v", errno)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(&out, ptm) // ends with EIO once no one has the terminal open
	}()
	err = cmd.Start()
	tty.Close()
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	<-done
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String()
	}
	t.Fatal(err)
	return 0, ""
}

// shq quotes s for sh.
func shq(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
