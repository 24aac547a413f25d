//go:build unix

package clip

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangGuard bounds a Copy that is expected to return promptly. It is not a
// timing assertion: it only turns a hang (the bug under test) into a
// failure long before go test's own timeout.
const hangGuard = 60 * time.Second

// copyGuarded runs Copy, failing the test if it has not returned within
// hangGuard.
func copyGuarded(t *testing.T, ctx context.Context, payload []byte, o Options) (Report, error) {
	t.Helper()
	type result struct {
		rep Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := Copy(ctx, payload, o)
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		return r.rep, r.err
	case <-time.After(hangGuard):
		t.Fatalf("Copy did not return within %s: it is waiting on the tool or its child", hangGuard)
		return Report{}, nil
	}
}

// killPIDFile ends the process whose id a fake tool wrote to path.
func killPIDFile(t *testing.T, path string) {
	t.Cleanup(func() {
		b, err := os.ReadFile(path)
		if err != nil {
			return
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
}

func TestNativeToolGetsExactBytes(t *testing.T) {
	dir := t.TempDir()
	got, args, display := filepath.Join(dir, "got"), filepath.Join(dir, "args"), filepath.Join(dir, "display")
	xclipPath := script(t, dir, "xclip", `echo "$@" > "`+args+`"; printf %s "$DISPLAY" > "`+display+`"; cat > "`+got+`"`)
	file := filepath.Join(dir, "clipboard.txt")

	rep, err := copyGuarded(t, context.Background(), payloadSample, Options{
		Getenv: envOf("DISPLAY=:42"), LookPath: lookIn(map[string]string{"xclip": xclipPath}), File: file,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != "xclip" || rep.Bytes != len(payloadSample) || len(rep.Warnings) != 0 {
		t.Errorf("report = %+v, want xclip, %d bytes, no warnings", rep, len(payloadSample))
	}
	if b := readFile(t, got); !bytes.Equal(b, payloadSample) {
		t.Errorf("tool got %q, want %q", b, payloadSample)
	}
	if a := strings.TrimSpace(string(readFile(t, args))); a != "-selection clipboard -in" {
		t.Errorf("xclip args = %q", a)
	}
	if d := string(readFile(t, display)); d != ":42" {
		t.Errorf("tool saw DISPLAY=%q, want the injected :42", d)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Error("the fallback file was written although xclip worked")
	}
}

func TestFailingToolFallsBack(t *testing.T) {
	dir := t.TempDir()
	got := filepath.Join(dir, "got")
	xclipPath := script(t, dir, "xclip", `cat >/dev/null; echo "Error: Can't open display: :0" >&2; echo "  second   line" >&2; exit 1`)
	xselPath := script(t, dir, "xsel", `cat > "`+got+`"`)

	rep, err := copyGuarded(t, context.Background(), payloadSample, Options{
		Getenv:   envOf("DISPLAY=:0"),
		LookPath: lookIn(map[string]string{"xclip": xclipPath, "xsel": xselPath}),
		File:     filepath.Join(dir, "clipboard.txt"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != "xsel" {
		t.Errorf("method = %q, want xsel after xclip failed", rep.Method)
	}
	if b := readFile(t, got); !bytes.Equal(b, payloadSample) {
		t.Errorf("xsel got %q", b)
	}
	want := "xclip failed: exit status 1: Error: Can't open display: :0 second line; trying the next way"
	if len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Errorf("warnings = %q, want [%q]", rep.Warnings, want)
	}
}

func TestAllToolsFailThenFile(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 2000)
	xclipPath := script(t, dir, "xclip", `echo `+long+` >&2; exit 3`)
	wlPath := script(t, dir, "wl-copy", `exit 1`)
	file := filepath.Join(dir, "sub", "clipboard.txt")

	rep, err := copyGuarded(t, context.Background(), payloadSample, Options{
		Getenv:   envOf("DISPLAY=:0", "WAYLAND_DISPLAY=wayland-1"),
		LookPath: lookIn(map[string]string{"xclip": xclipPath, "wl-copy": wlPath}),
		File:     file,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != MethodFile || rep.Path != file {
		t.Errorf("report = %+v, want the file %s", rep, file)
	}
	if b := readFile(t, file); !bytes.Equal(b, payloadSample) {
		t.Errorf("file holds %q", b)
	}
	if len(rep.Warnings) != 2 || !strings.HasPrefix(rep.Warnings[0], "wl-copy failed: exit status 1;") ||
		!strings.HasPrefix(rep.Warnings[1], "xclip failed: exit status 3: xxx") {
		t.Fatalf("warnings = %q", rep.Warnings)
	}
	if n := len(rep.Warnings[1]); n > stderrMax+100 {
		t.Errorf("xclip's stderr was not trimmed: warning is %d bytes", n)
	}
}

// TestDaemonizingTool is xclip's and xsel's habit: read the input, fork a
// child that keeps the inherited stdout and stderr, exit.
func TestDaemonizingTool(t *testing.T) {
	dir := t.TempDir()
	got, pid := filepath.Join(dir, "got"), filepath.Join(dir, "pid")
	killPIDFile(t, pid)
	xclipPath := script(t, dir, "xclip", `cat > "`+got+`"
sleep 3600 &
echo $! > "`+pid+`"
exit 0`)

	rep, err := copyGuarded(t, context.Background(), payloadSample, Options{
		Getenv: envOf("DISPLAY=:0"), LookPath: lookIn(map[string]string{"xclip": xclipPath}),
		File: filepath.Join(dir, "clipboard.txt"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != "xclip" || len(rep.Warnings) != 0 {
		t.Errorf("report = %+v, want xclip without warnings", rep)
	}
	if b := readFile(t, got); !bytes.Equal(b, payloadSample) {
		t.Errorf("tool got %q", b)
	}
	if _, err := os.Stat(pid); err != nil {
		t.Errorf("the fake tool did not fork its child: %v", err)
	}
}

// TestToolLeavesInputUnread: the tool exits at once, leaving a child that
// holds stdin without reading it, so the payload (larger than a pipe
// buffer) cannot all be written. Copy must notice and fall back.
func TestToolLeavesInputUnread(t *testing.T) {
	dir := t.TempDir()
	pid := filepath.Join(dir, "pid")
	killPIDFile(t, pid)
	xselPath := script(t, dir, "xsel", `exec 3<&0
sleep 3600 <&3 &
echo $! > "`+pid+`"
exit 0`)
	file := filepath.Join(dir, "clipboard.txt")
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB

	rep, err := copyGuarded(t, context.Background(), payload, Options{
		Getenv: envOf("DISPLAY=:0"), LookPath: lookIn(map[string]string{"xsel": xselPath}), File: file,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != MethodFile {
		t.Errorf("method = %q, want the file fallback", rep.Method)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "xsel exited without reading the whole payload") {
		t.Errorf("warnings = %q", rep.Warnings)
	}
	if b := readFile(t, file); !bytes.Equal(b, payload) {
		t.Errorf("file holds %d bytes, want the %d-byte payload", len(b), len(payload))
	}
}

func TestToolTimeout(t *testing.T) {
	dir := t.TempDir()
	wlPath := script(t, dir, "wl-copy", `echo waiting for the compositor >&2; exec sleep 3600`)
	file := filepath.Join(dir, "clipboard.txt")

	rep, err := copyGuarded(t, context.Background(), payloadSample, Options{
		Getenv: envOf("WAYLAND_DISPLAY=wayland-0"), LookPath: lookIn(map[string]string{"wl-copy": wlPath}),
		File: file, Timeout: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != MethodFile {
		t.Errorf("method = %q, want the file after the timeout", rep.Method)
	}
	want := "wl-copy failed: timed out after 200ms: waiting for the compositor; trying the next way"
	if len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Errorf("warnings = %q, want [%q]", rep.Warnings, want)
	}
}

func TestCancelWhileToolRuns(t *testing.T) {
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	xclipPath := script(t, dir, "xclip", `touch "`+started+`"; exec sleep 3600`)
	file := filepath.Join(dir, "clipboard.txt")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for {
			if _, err := os.Stat(started); err == nil {
				cancel()
				return
			}
			if ctx.Err() != nil {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()

	_, err := copyGuarded(t, ctx, payloadSample, Options{
		Getenv: envOf("DISPLAY=:0"), LookPath: lookIn(map[string]string{"xclip": xclipPath}), File: file,
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, statErr := os.Stat(file); !errors.Is(statErr, os.ErrNotExist) {
		t.Error("Copy went on to the file after cancellation")
	}
}

func TestPbcopyGetsUTF8Locale(t *testing.T) {
	dir := t.TempDir()
	lang := filepath.Join(dir, "lang")
	pbPath := script(t, dir, "pbcopy", `printf %s "$LANG" > "`+lang+`"; cat >/dev/null`)
	for _, tc := range []struct{ env, want string }{{"", "en_US.UTF-8"}, {"LC_ALL=fr_FR.UTF-8", ""}} {
		rep, err := copyGuarded(t, context.Background(), payloadSample, Options{
			Getenv: envOf(tc.env), LookPath: lookIn(map[string]string{"pbcopy": pbPath}), goos: "darwin",
		})
		if err != nil || rep.Method != "pbcopy" {
			t.Fatalf("report %+v, err %v", rep, err)
		}
		if got := string(readFile(t, lang)); got != tc.want && !(tc.want == "" && got == os.Getenv("LANG")) {
			t.Errorf("with env %q pbcopy saw LANG=%q, want %q", tc.env, got, tc.want)
		}
	}
}

func TestStderrSuffix(t *testing.T) {
	cases := map[string]string{
		"":                       "",
		"  \n\t ":                "",
		"a\n  b\tc\n":            ": a b c",
		strings.Repeat("é", 400): ": " + strings.Repeat("é", stderrMax/2) + "…",
	}
	for in, want := range cases {
		if got := stderrSuffix([]byte(in)); got != want {
			t.Errorf("stderrSuffix(%.20q) = %.40q, want %.40q", in, got, want)
		}
	}
}
