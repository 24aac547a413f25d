package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// stopGrace is how long a command has, after SIGINT or SIGTERM cancelled
// its context, to wind down before the process ends anyway.
const stopGrace = 900 * time.Millisecond

// Interruptible returns a context cancelled by SIGINT or SIGTERM. Every
// command winds down on it; one blocked where a context cannot reach (a
// read of a terminal or a pipe that never ends, a library call) is ended
// by exit within stopGrace of the signal, or at once on a second signal.
// Nothing is lost that way: the index commits atomically and every file
// dossier writes is renamed into place whole.
func Interruptible(stderr io.Writer, exit func(int)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigs:
		case <-done:
			return
		}
		cancel()
		select {
		case <-done:
			return
		case <-sigs:
		case <-time.After(stopGrace):
		}
		fmt.Fprintf(stderr, "dossier: stopped by %s; everything written so far is kept, run the command again to finish\n", signalName(sig))
		exit(exitCode(sig))
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

func signalName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	return "SIGINT"
}

// exitCode is the shell's convention: 128 + the signal's number.
func exitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return ExitInterrupted
}
