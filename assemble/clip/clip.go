// Package clip puts an assembled prompt on the user's clipboard, or, when no
// clipboard can be reached, into a file, and reports which one it used.
//
// There are three ways to a clipboard and none works everywhere:
//
//   - OSC 52, an escape sequence written to the terminal, which then sets
//     the clipboard of the machine the terminal runs on. It works over SSH
//     and through tmux and screen, but only if the terminal implements it
//     (VTE-based terminals such as GNOME Terminal do not), and nothing tells
//     the sender whether it worked.
//   - A native tool: wl-copy (Wayland), xclip or xsel (X11), pbcopy (macOS).
//     They report failure by their exit status, but set the clipboard of the
//     machine dossier runs on, which over SSH is the wrong one.
//   - A file, which always works and which the user can open or cat.
//
// # The auto order
//
// Method "auto" tries, in order, until one succeeds:
//
//  1. OSC 52, when the session is remote (SSH_TTY, SSH_CONNECTION or
//     SSH_CLIENT is set, or tmux says its latest client attached over SSH)
//     and a terminal is attached: the native tools would fill the clipboard
//     of the wrong machine.
//  2. The native tools the session's display calls for, when installed:
//     pbcopy on macOS, wl-copy when WAYLAND_DISPLAY is set, then xclip and
//     xsel when DISPLAY is set. They come before OSC 52 in a local session
//     because their failure is detectable and they do not depend on the
//     terminal's support.
//  3. OSC 52, when a terminal is attached and not already tried.
//  4. The file Options.File.
//
// Inside tmux, OSC 52 is written plainly: with `set -g set-clipboard on`,
// tmux stores it in a paste buffer and forwards it to the outer terminal. The
// default, set-clipboard external, makes tmux drop it, and tmux's DCS
// passthrough is off by default too, so Copy asks tmux (tmux display-message)
// first: with set-clipboard on it sends plain OSC 52, with only
// allow-passthrough on it wraps the sequence for passthrough, and with
// neither auto skips OSC 52 with a warning saying how to enable it. Inside
// GNU screen, which does not implement OSC 52, the sequence is wrapped in DCS
// strings that screen hands to the outer terminal. When both TMUX and STY are
// set, tmux is assumed to be the innermost.
//
// Method "osc52" sends OSC 52 even when tmux would drop it (with a warning),
// "native" tries the native tools (all installed ones when the environment
// names no display), and "file" writes the file. Every method falls back to
// the file when it fails, recording why in Report.Warnings, so the payload is
// never lost silently. When even the file cannot be written, Copy returns an
// error saying where it tried and why; callers then print the payload to
// standard output.
package clip

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// The values of Options.Method; MethodOSC52 and MethodFile are also values
// of Report.Method.
const (
	// MethodAuto picks the destination as the package doc describes.
	MethodAuto = "auto"
	// MethodOSC52 sends the OSC 52 escape sequence to Options.TTY.
	MethodOSC52 = "osc52"
	// MethodNative pipes the payload into wl-copy, xclip, xsel or pbcopy.
	MethodNative = "native"
	// MethodFile writes Options.File.
	MethodFile = "file"
)

// DefaultTimeout bounds each native tool run when Options.Timeout is zero.
// Tools reach a display server, which can hang when the display is gone.
const DefaultTimeout = 5 * time.Second

// Options is all the environment the choice of destination depends on, so
// tests can inject every part of it.
type Options struct {
	// Method is "auto" (also when empty), "osc52", "native" or "file".
	Method string
	// TTY is where OSC 52 goes: the controlling terminal, e.g. from OpenTTY.
	// Nil means not attached to a terminal, which rules OSC 52 out. A TUI
	// should pass a writer that does not interleave with its renderer.
	TTY io.Writer
	// Getenv reads the environment; nil means os.Getenv. When set, the
	// display variables it returns are also the ones the native tools see.
	Getenv func(string) string
	// LookPath finds the native tools and tmux; nil means exec.LookPath.
	LookPath func(string) (string, error)
	// File is the fallback file, e.g. <flow>/build/clipboard.txt. It is
	// required for method "file" and is the last resort of every method.
	File string
	// Timeout bounds each native tool (and tmux query); zero means
	// DefaultTimeout.
	Timeout time.Duration

	goos string // runtime.GOOS unless a test sets it
}

// Report says where the payload went.
type Report struct {
	// Method is "osc52", "wl-copy", "xclip", "xsel", "pbcopy" or "file"; empty
	// when nothing worked.
	Method string
	// Path is the file written, absolute when it could be made so, when
	// Method is "file".
	Path string
	// Bytes is the payload's size.
	Bytes int
	// Warnings are things the user should know even though the copy went
	// through: a payload over what terminals accept in OSC 52, a tool that
	// failed before the fallback, tmux settings that drop OSC 52.
	Warnings []string
}

// step is one destination to try.
type step struct {
	kind string // MethodOSC52, MethodNative or MethodFile
	tool tool   // for MethodNative
}

// copier holds one Copy call's resolved environment.
type copier struct {
	o        Options
	payload  []byte
	getenv   func(string) string
	lookPath func(string) (string, error)
	timeout  time.Duration
	rep      *Report
	mux      mux
}

// newCopier fills in the defaults of o.
func newCopier(payload []byte, o Options) *copier {
	c := &copier{o: o, payload: payload, getenv: o.Getenv, lookPath: o.LookPath, timeout: o.Timeout, rep: &Report{Bytes: len(payload)}}
	if c.getenv == nil {
		c.getenv = os.Getenv
	}
	if c.lookPath == nil {
		c.lookPath = exec.LookPath
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if c.o.goos == "" {
		c.o.goos = runtime.GOOS
	}
	return c
}

// Copy puts payload on the clipboard, or in o.File, as o.Method says, and
// reports which destination it used. The error is non-nil only when the
// payload went nowhere, or when ctx ended first; the report's warnings are
// filled in either way.
func Copy(ctx context.Context, payload []byte, o Options) (Report, error) {
	c := newCopier(payload, o)
	err := c.run(ctx)
	return *c.rep, err
}

// run tries the planned destinations in order until one takes the payload.
func (c *copier) run(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("clip: %w", err)
	}
	steps, err := c.plan(ctx)
	if err != nil {
		return err
	}
	var failures []string
	for _, s := range steps {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("clip: %w", err)
		}
		var err error
		switch s.kind {
		case MethodOSC52:
			if err = c.sendOSC52(ctx); err == nil {
				c.rep.Method = MethodOSC52
				return nil
			}
			err = fmt.Errorf("OSC 52 to the terminal failed: %w", err)
		case MethodNative:
			if err = c.runTool(ctx, s.tool); err == nil {
				c.rep.Method = s.tool.name
				return nil
			}
		case MethodFile:
			path, err := writeFileAtomic(c.o.File, c.payload)
			if err == nil {
				c.rep.Method, c.rep.Path = MethodFile, path
				return nil
			}
			// The file is the last resort: its failure is the error, not a
			// warning.
			failures = append(failures, err.Error())
			continue
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return fmt.Errorf("clip: %w", ctxErr)
		}
		c.warn(err.Error() + "; trying the next way")
		failures = append(failures, err.Error())
	}
	if c.o.File == "" {
		if len(failures) == 0 {
			failures = append(failures, "no terminal or clipboard tool to use")
		}
		failures = append(failures, "no fallback file was given")
	}
	return fmt.Errorf("clip: payload not copied (%s); save it with --out FILE", strings.Join(failures, "; "))
}

// plan lists the destinations to try for c.o.Method, in order, ending with
// the file when one is given. Warnings about destinations left out go into
// the report here.
func (c *copier) plan(ctx context.Context) ([]step, error) {
	method := strings.ToLower(strings.TrimSpace(c.o.Method))
	if method == "" {
		method = MethodAuto
	}
	var steps []step
	switch method {
	case MethodFile:
		if c.o.File == "" {
			return nil, errors.New("clip: method file needs a file path")
		}
	case MethodOSC52:
		if c.o.TTY == nil {
			c.warn("OSC 52 needs a terminal and none is attached")
			break
		}
		c.mux = c.detectMux(ctx)
		if ok, why := c.mux.acceptsOSC52(len(c.payload)); !ok {
			c.warn(why + "; sending OSC 52 anyway")
		}
		steps = append(steps, step{kind: MethodOSC52})
	case MethodNative:
		tools := c.installed(c.displayTools())
		if len(tools) == 0 {
			tools = c.installed(allTools)
		}
		if len(tools) == 0 {
			c.warn("no clipboard tool found: install wl-clipboard, xclip or xsel")
		}
		for _, t := range tools {
			steps = append(steps, step{kind: MethodNative, tool: t})
		}
	case MethodAuto:
		steps = c.autoPlan(ctx)
	default:
		return nil, fmt.Errorf("clip: unknown method %q: use auto, osc52, native or file", c.o.Method)
	}
	if c.o.File != "" {
		steps = append(steps, step{kind: MethodFile})
	}
	return steps, nil
}

// autoPlan is the order the package doc describes.
func (c *copier) autoPlan(ctx context.Context) []step {
	remote := c.getenv("SSH_TTY") != "" || c.getenv("SSH_CONNECTION") != "" || c.getenv("SSH_CLIENT") != ""
	osc := false
	if c.o.TTY != nil {
		c.mux = c.detectMux(ctx)
		if c.mux.sshKnown {
			// tmux's session environment follows the latest attached
			// client, unlike ours, which is the one the pane started with.
			remote = c.mux.ssh
		}
		ok, why := c.mux.acceptsOSC52(len(c.payload))
		if ok {
			osc = true
		} else {
			c.warn(why + "; not using OSC 52")
		}
	}
	var steps []step
	if osc && remote {
		steps = append(steps, step{kind: MethodOSC52})
	}
	for _, t := range c.installed(c.displayTools()) {
		steps = append(steps, step{kind: MethodNative, tool: t})
	}
	if osc && !remote {
		steps = append(steps, step{kind: MethodOSC52})
	}
	return steps
}

// displayTools are the native tools the environment's display calls for,
// best first.
func (c *copier) displayTools() []tool {
	var ts []tool
	if c.o.goos == "darwin" {
		ts = append(ts, pbcopy)
	}
	if c.getenv("WAYLAND_DISPLAY") != "" {
		ts = append(ts, wlCopy)
	}
	if c.getenv("DISPLAY") != "" {
		ts = append(ts, xclip, xsel)
	}
	return ts
}

// installed keeps the tools LookPath finds, with their resolved paths.
func (c *copier) installed(ts []tool) []tool {
	var out []tool
	for _, t := range ts {
		p, err := c.lookPath(t.name)
		if err != nil || p == "" {
			continue
		}
		t.path = p
		out = append(out, t)
	}
	return out
}

func (c *copier) warn(s string) {
	c.rep.Warnings = append(c.rep.Warnings, s)
}
