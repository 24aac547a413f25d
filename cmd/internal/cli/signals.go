package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// stopGrace is how long a command has, after a signal cancelled its
// context, to wind down before the process ends anyway.
const stopGrace = 900 * time.Millisecond

// stopSignals are the signals that stop a command: Ctrl-C, kill's
// default, and the terminal going away (a closed window, a killed tmux
// session). SIGHUP is left alone when the process started with it
// ignored (nohup), as the user asked.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// Stopped is the cause of a context that a signal cancelled: the process
// exits with its ExitCode, 128 + the signal, as a shell reports a process
// the signal ended.
type Stopped struct {
	Signal os.Signal
	said   sync.Once
}

func (s *Stopped) Error() string { return "stopped by " + s.Name() }

// Name is the signal's name as kill(1) spells it: SIGINT, SIGTERM, SIGHUP.
func (s *Stopped) Name() string {
	switch s.Signal {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.Signal.String()
}

// ExitCode is the shell's convention: 128 + the signal's number.
func (s *Stopped) ExitCode() int {
	if n, ok := s.Signal.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return ExitInterrupted
}

// say prints the line that ends a stopped command, once, whichever of the
// command and the backstop gets there first.
func (s *Stopped) say(w io.Writer, what string) {
	s.said.Do(func() { fmt.Fprintf(w, "dossier: stopped by %s%s\n", s.Name(), what) })
}

// StoppedBy returns the signal that cancelled ctx, if one did (and not
// the caller's cancel, or a deadline).
func StoppedBy(ctx context.Context) (*Stopped, bool) {
	var s *Stopped
	if ctx.Err() != nil && errors.As(context.Cause(ctx), &s) {
		return s, true
	}
	return nil, false
}

// keptNote follows "stopped by SIGTERM" for a command that did not finish.
const keptNote = "; everything written so far is kept, run the command again to finish"

// endedNote says the backstop, not the command, ended the process: it did
// not wind down within stopGrace (or a second signal came), which is worth
// telling apart from a command that stopped on its own (tests do).
const endedNote = " (ended: it had not stopped when the signal came again or 0.9 s after it)"

// Interruptible returns a context cancelled by any of stopSignals, with a
// *Stopped as its cause. Every command winds down on it; one blocked where
// a context cannot reach (a read of a terminal or a pipe that never ends,
// a library call) is ended by exit within stopGrace of the signal, or at
// once on a second signal, with the same exit code. Nothing is lost that
// way: the index commits atomically and every file dossier writes is
// renamed into place whole.
func Interruptible(stderr io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	for _, sig := range stopSignals {
		if sig == syscall.SIGHUP && signal.Ignored(sig) {
			continue // nohup: the command outlives its terminal
		}
		signal.Notify(sigs, sig)
	}
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-done:
			return
		}
		stopped := &Stopped{Signal: sig}
		cancel(stopped)
		select {
		case <-done:
			return
		case <-sigs:
		case <-time.After(stopGrace):
		}
		stopped.say(stderr, endedNote+keptNote)
		exit(stopped.ExitCode())
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(context.Canceled)
	}
}
