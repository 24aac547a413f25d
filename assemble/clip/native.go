package clip

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// tool is a native clipboard program that reads the payload on stdin.
type tool struct {
	name string
	args []string
	path string // resolved by LookPath
}

// The native tools. xclip, xsel and wl-copy fork a child that stays to serve
// the selection after the parent exits; runTool copes with that.
var (
	// An explicit type stops wl-copy guessing one from the content (a
	// prompt starting with "#!" would be offered as a shell script, which
	// some applications refuse to paste).
	wlCopy = tool{name: "wl-copy", args: []string{"--type", "text/plain;charset=utf-8"}}
	xclip  = tool{name: "xclip", args: []string{"-selection", "clipboard", "-in"}}
	xsel   = tool{name: "xsel", args: []string{"--clipboard", "--input"}}
	pbcopy = tool{name: "pbcopy"}

	allTools = []tool{wlCopy, xclip, xsel, pbcopy}
)

// waitDelay is how long Wait waits, after a tool exits, for the stdin pipe
// to drain. It only runs out when the tool exited without reading all its
// input while a child it left behind holds the pipe open: the payload did
// not arrive, and without the delay Wait would block as long as the child.
const waitDelay = time.Second

// stderrMax caps how much of a failing tool's stderr goes into a warning.
const stderrMax = 300

// runTool pipes the payload into t and reports its failure, if any, with
// the tool's name and trimmed stderr.
//
// Daemonizing tools keep the stdout and stderr they inherited, so a pipe on
// either would make Wait block until the daemon exits, which for a
// clipboard owner is when something else is copied. So stdout is /dev/null
// and stderr an unlinked temporary file, neither of which Wait waits for.
func (c *copier) runTool(ctx context.Context, t tool) error {
	errf, err := os.CreateTemp("", "dossier-clip-*.stderr")
	if err != nil {
		return fmt.Errorf("%s: cannot capture its errors: %w", t.name, err)
	}
	defer func() {
		_ = errf.Close()
		_ = os.Remove(errf.Name())
	}()

	tctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	path := t.path
	if path == "" {
		path = t.name
	}
	cmd := exec.CommandContext(tctx, path, t.args...)
	cmd.Stdin = bytes.NewReader(c.payload)
	cmd.Stdout = nil
	cmd.Stderr = errf
	cmd.WaitDelay = waitDelay
	cmd.Env = c.toolEnv(t)
	runErr := cmd.Run()
	if runErr == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	stderr := readHead(errf, 4096)
	if errors.Is(runErr, exec.ErrWaitDelay) {
		return fmt.Errorf("%s exited without reading the whole payload%s", t.name, stderrSuffix(stderr))
	}
	return fmt.Errorf("%s failed: %s", t.name, describeFailure(tctx, runErr, stderr, c.timeout))
}

// describeFailure words a command's failure: a timeout, or the error with
// the command's stderr.
func describeFailure(ctx context.Context, err error, stderr []byte, timeout time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timed out after %s%s", timeout, stderrSuffix(stderr))
	}
	return err.Error() + stderrSuffix(stderr)
}

// stderrSuffix is ": <stderr>" with whitespace runs collapsed and the text
// cut to stderrMax bytes, or "" when there is none.
func stderrSuffix(stderr []byte) string {
	s := strings.Join(strings.Fields(string(stderr)), " ")
	if s == "" {
		return ""
	}
	if len(s) > stderrMax {
		cut := stderrMax
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return ": " + s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// readHead reads up to n bytes from the start of f.
func readHead(f *os.File, n int64) []byte {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil
	}
	b, _ := io.ReadAll(io.LimitReader(f, n))
	return b
}

// toolEnv is the environment for t: the process's own, with the display
// variables as Options.Getenv reports them, so an injected environment is
// the one the tools see too. pbcopy converts from the locale's encoding and
// mangles UTF-8 under the C locale, so it gets a UTF-8 LANG when none is set.
func (c *copier) toolEnv(t tool) []string {
	keys := []string{"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR"}
	env := c.cmdEnv(keys...)
	if t.name == pbcopy.name && c.getenv("LANG") == "" && c.getenv("LC_ALL") == "" && c.getenv("LC_CTYPE") == "" {
		if env == nil {
			env = os.Environ()
		}
		env = append(env, "LANG=en_US.UTF-8")
	}
	return env
}

// cmdEnv is nil (inherit the process environment) when Options.Getenv is
// not set; otherwise the process environment with keys replaced by what
// Getenv returns for them, and dropped where it returns "".
func (c *copier) cmdEnv(keys ...string) []string {
	if c.o.Getenv == nil {
		return nil
	}
	drop := make(map[string]bool, len(keys))
	for _, k := range keys {
		drop[k] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	for _, k := range keys {
		if v := c.getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}
