package clip

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os/exec"
	"strings"

	osc52 "github.com/aymanbagabas/go-osc52/v2"
)

// OSC52Limit is the longest OSC 52 sequence, in bytes as the terminal
// receives it ("\x1b]52;c;" + base64 + BEL), that Copy sends without a
// warning: about 74,990 bytes of payload. It is the OSC_52_MAX_SEQUENCE of
// Chromium OS's osc52.sh, written for hterm (the ChromeOS terminal and
// Secure Shell), and the default limit that scripts and editor plugins
// derived from it (vim-oscyank among them) still use. Terminals differ
// widely: Termux drops sequences of a few KB, tmux discards any sequence
// over its 1 MiB input buffer, kitty accepts up to 8 MB. Copy warns above
// the limit but still sends, since many terminals take more.
const OSC52Limit = 100_000

// tmuxInputLimit is tmux's input buffer (INPUT_BUF_DEFAULT_SIZE, settable
// with input-buffer-size from tmux 3.6): a longer sequence is discarded
// whole, so auto does not count on OSC 52 past it.
const tmuxInputLimit = 1 << 20

// osc52Prefix is what precedes the base64 text in a plain sequence.
const osc52Prefix = "\x1b]52;c;"

// osc52Len is the size of the plain OSC 52 sequence carrying n bytes.
func osc52Len(n int) int {
	return len(osc52Prefix) + base64.StdEncoding.EncodedLen(n) + 1
}

// mux is the terminal multiplexer between us and the terminal, if any.
type mux struct {
	kind string // "", "tmux" or "screen"
	// The rest is what tmux said; probeErr is set when it could not be
	// asked, and then the fields below it are unknown.
	probeErr     string
	setClipboard string // "on", "external" or "off"
	passthrough  bool   // allow-passthrough on (or all)
	ssh          bool   // the latest attached client came over SSH
	sshKnown     bool
}

// detectMux works out the multiplexer from TMUX and STY and, for tmux,
// asks it how it treats OSC 52.
func (c *copier) detectMux(ctx context.Context) mux {
	switch {
	case c.getenv("TMUX") != "":
		m := mux{kind: "tmux"}
		c.probeTmux(ctx, &m)
		return m
	case c.getenv("STY") != "":
		return mux{kind: "screen"}
	}
	return mux{}
}

// mode is how the sequence must be wrapped to reach the terminal through m.
func (m mux) mode() osc52.Mode {
	switch m.kind {
	case "screen":
		return osc52.ScreenMode
	case "tmux":
		// Plain OSC 52 is better whenever tmux accepts it: tmux then keeps
		// a paste buffer too, and forwards the sequence only to terminals
		// that announce clipboard support. Passthrough is the way left when
		// set-clipboard is not on.
		if m.probeErr == "" && m.setClipboard != "on" && m.passthrough {
			return osc52.TmuxMode
		}
	}
	return osc52.DefaultMode
}

// acceptsOSC52 says whether an OSC 52 sequence carrying n bytes can get
// through m, and if not, why, in words for the user.
func (m mux) acceptsOSC52(n int) (bool, string) {
	if m.kind != "tmux" {
		return true, ""
	}
	if m.probeErr == "" && m.setClipboard != "on" && !m.passthrough {
		return false, fmt.Sprintf("tmux drops OSC 52 from programs (set-clipboard is %s): run `tmux set -g set-clipboard on` to copy through it", m.setClipboard)
	}
	if l := osc52Len(n); l > tmuxInputLimit {
		return false, fmt.Sprintf("the OSC 52 sequence (%d bytes) is over tmux's %d-byte input limit", l, tmuxInputLimit)
	}
	return true, ""
}

// sendOSC52 writes the payload's OSC 52 sequence to the terminal, wrapped
// for the multiplexer, warning when terminals may drop it.
func (c *copier) sendOSC52(ctx context.Context) error {
	if c.o.TTY == nil {
		return fmt.Errorf("no terminal attached")
	}
	if l := osc52Len(len(c.payload)); l > OSC52Limit {
		c.warn(fmt.Sprintf("the payload (%d bytes) makes an OSC 52 sequence of %d bytes, over the %d many terminals accept; if the clipboard stays empty, save it with --out FILE", len(c.payload), l, OSC52Limit))
	}
	if c.mux.kind == "tmux" && c.mux.probeErr != "" {
		c.warn("could not ask tmux whether it passes OSC 52 on (" + c.mux.probeErr + "); if the clipboard stays empty, run `tmux set -g set-clipboard on`")
	}
	seq := osc52.New(string(c.payload)).Mode(c.mux.mode()).String()
	return writeCtx(ctx, c.o.TTY, seq)
}

// writeCtx writes s to w, giving up when ctx ends. A terminal can block a
// write indefinitely (flow control, a suspended pager); the abandoned write
// then finishes or fails in the background.
func writeCtx(ctx context.Context, w io.Writer, s string) error {
	if ctx.Done() == nil {
		_, err := io.WriteString(w, s)
		return err
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.WriteString(w, s)
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// probeTmux asks the tmux server of $TMUX for its clipboard settings and
// the environment of its latest attached client, in one tmux run.
func (c *copier) probeTmux(ctx context.Context, m *mux) {
	path, err := c.lookPath("tmux")
	if err != nil {
		m.probeErr = "tmux not found in PATH"
		return
	}
	var target []string
	if pane := c.getenv("TMUX_PANE"); pane != "" {
		target = []string{"-t", pane}
	}
	args := append([]string{"display-message", "-p"}, target...)
	args = append(args, "#{set-clipboard} #{allow-passthrough}", ";", "show-environment")
	args = append(args, target...)

	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = c.cmdEnv("TMUX", "TMUX_PANE")
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	cmd.WaitDelay = waitDelay
	if err := cmd.Run(); err != nil {
		m.probeErr = describeFailure(ctx, err, stderr.Bytes(), c.timeout)
		return
	}
	parseTmuxProbe(out.Bytes(), m)
}

// parseTmuxProbe reads probeTmux's output: "<set-clipboard> <passthrough>"
// then show-environment lines, where "-NAME" means unset.
func parseTmuxProbe(out []byte, m *mux) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	if !sc.Scan() {
		m.probeErr = "tmux printed nothing"
		return
	}
	f := strings.Fields(sc.Text())
	if len(f) == 0 {
		m.probeErr = "tmux printed no settings"
		return
	}
	m.setClipboard = f[0]
	if len(f) > 1 {
		// A flag in tmux 3.3 ("1"/"0"), a choice in 3.4 ("on"/"all"/"off").
		m.passthrough = f[1] == "1" || f[1] == "on" || f[1] == "all"
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "-SSH_CONNECTION":
			m.ssh, m.sshKnown = false, true
		case strings.HasPrefix(line, "SSH_CONNECTION="):
			m.ssh, m.sshKnown = line != "SSH_CONNECTION=", true
		}
	}
}
