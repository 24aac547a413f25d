package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/fsnotify/fsnotify"
)

// flowChangedMsg says the flow directory changed on disk.
type flowChangedMsg struct{}

// RunOptions start the workbench.
type RunOptions struct {
	Options
	// Debug names a log file; empty logs nothing.
	Debug string
	In    io.Reader
	Out   io.Writer
}

// Run opens the workbench and blocks until the user quits. A panic is
// caught by Bubble Tea, which restores the terminal; it is logged to the
// debug log and returned as an error.
func Run(ctx context.Context, o RunOptions) error {
	logger := log.New(io.Discard, "", 0)
	if o.Debug != "" {
		if err := os.MkdirAll(filepath.Dir(o.Debug), 0o700); err == nil {
			if f, err := openLog(o.Debug); err == nil {
				defer f.Close()
				logger = log.New(f, "dossier ", log.LstdFlags|log.Lmicroseconds)
			}
		}
	}
	// The index is kept current until the workbench quits; then Run
	// waits for its goroutine, so that none is left writing. (A batch cut
	// short is not written: the index keeps its earlier state.)
	ictx, stopIndex := context.WithCancel(ctx)
	o.Options.Log, o.Options.Ctx = logger, ictx
	m := New(o.Options)
	defer func() {
		stopIndex()
		m.bg.stop()
	}()
	// The signals are the caller's: it cancels ctx on them. Bubble Tea's
	// own handler would race it for the same SIGTERM and then block its
	// shutdown, sending a QuitMsg that no event loop is left to take, until
	// the caller's backstop ended the process with the terminal still in
	// the alternate screen.
	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	p := tea.NewProgram(m, opts...)
	stop := watchFlows(o.Root, p, logger)
	defer stop()
	stopConfig := watchConfig(o.ConfigFiles, p, logger)
	defer stopConfig()
	logger.Printf("start root=%s", o.Root)
	final, err := p.Run()
	m.run.close() // a change still being applied finishes before we return
	if fm, ok := final.(Model); ok {
		fm.StopSend() // an answer streaming in is kept, marked incomplete
	}
	if fm, ok := final.(Model); ok && fm.Fatal() != "" {
		return fmt.Errorf("the workbench stopped on an %s; the flow on disk is as the last completed command left it (details: run with --debug, log %s)", fm.Fatal(), logName(o.Debug))
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tea.ErrProgramPanic): // wrapped in ErrProgramKilled: test it first
		logger.Printf("exit: %v", err)
		return fmt.Errorf("the workbench crashed (%w); the flow on disk is as the last completed command left it", err)
	case errors.Is(err, tea.ErrProgramKilled), errors.Is(err, context.Canceled):
		return nil
	}
	logger.Printf("exit: %v", err)
	return err
}

// openLog opens the debug log for appending. A FIFO or a device put at its
// path is never waited on (the open does not block) nor written to.
func openLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("debug log %s is not a regular file", path)
	}
	return f, nil
}

func logName(path string) string {
	if path == "" {
		return "$XDG_CACHE_HOME/dossier/debug.log"
	}
	return path
}

// watchFlows tells the program when anything under .dossier/flows changes
// (a part edited in another shell or an editor), at most every 150 ms.
func watchFlows(root string, p *tea.Program, logger *log.Logger) func() {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		logger.Printf("watch: %v", err)
		return func() {}
	}
	dirs := map[string]bool{}
	add := func() {
		base := filepath.Join(root, ".dossier", "flows")
		_ = filepath.WalkDir(base, func(path string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if d.Name() == "build" {
				return filepath.SkipDir
			}
			if !dirs[path] && w.Add(path) == nil {
				dirs[path] = true
			}
			return nil
		})
	}
	add()
	if dir := os.Getenv("FLOW_DIR"); dir != "" {
		for _, d := range []string{dir, filepath.Join(dir, "ctx"), filepath.Join(dir, "ctx", "evidence")} {
			_ = w.Add(d)
		}
	}
	return debounce(w, p, flowChangedMsg{}, logger, func(ev fsnotify.Event) bool {
		if ev.Op&(fsnotify.Remove|fsnotify.Rename) != 0 && dirs[ev.Name] {
			delete(dirs, ev.Name) // the kernel dropped its watch; re-add it if it comes back
		}
		if ev.Op&fsnotify.Create != 0 {
			if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
				add() // a new flow or evidence directory
			}
		}
		return true
	})
}

// debounce sends msg to p at most every 150 ms while w reports events
// that matter says are worth it, and logs w's errors; it runs until the
// function it returns is called, which closes w.
func debounce(w *fsnotify.Watcher, p *tea.Program, msg tea.Msg, logger *log.Logger, matter func(fsnotify.Event) bool) func() {
	done := make(chan struct{})
	go func() {
		var timer <-chan time.Time
		for {
			select {
			case <-done:
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if matter(ev) && timer == nil {
					timer = time.After(150 * time.Millisecond)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				logger.Printf("watch: %v", err)
			case <-timer:
				timer = nil
				p.Send(msg)
			}
		}
	}()
	return func() {
		close(done)
		w.Close()
	}
}
