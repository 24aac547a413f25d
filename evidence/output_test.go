package evidence

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const outText = "the prompt\n"

// TestWriteOutputReplacesRegularFiles: a regular file is replaced with
// its mode kept; through a symlink, the target is, and the link stays.
func TestWriteOutputReplacesRegularFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(path string) {
		t.Helper()
		if err := WriteOutput(context.Background(), path, []byte(outText)); err != nil {
			t.Fatal(err)
		}
	}
	check := func(path string, want fs.FileMode) {
		t.Helper()
		st, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(path)
		if st.Mode() != want || string(raw) != outText {
			t.Errorf("%s: mode %v (want %v), text %q", path, st.Mode(), want, raw)
		}
	}

	shared := filepath.Join(dir, "shared.md")
	mustWrite(t, shared, "old", 0o644)
	write(shared)
	check(shared, 0o644)

	fresh := filepath.Join(dir, "new", "p.md")
	write(fresh)
	check(fresh, FileMode)

	target, link := filepath.Join(dir, "target.md"), filepath.Join(dir, "link.md")
	mustWrite(t, target, "old", 0o640)
	mustSymlink(t, target, link)
	write(link)
	check(target, 0o640)
	checkLink(t, link, target)

	// A link to nothing yet: the shell's > creates its target.
	gone, dangling := filepath.Join(dir, "later.md"), filepath.Join(dir, "dangling.md")
	mustSymlink(t, gone, dangling)
	write(dangling)
	check(gone, FileMode)
	checkLink(t, dangling, gone)

	if err := WriteOutput(context.Background(), dir, []byte(outText)); err == nil || !strings.Contains(err.Error(), dir+" is a directory") {
		t.Errorf("a directory: %v", err)
	}
}

// TestWriteOutputIntoAFIFO: a FIFO's reader gets the text and the FIFO is
// still there; without a reader the write waits for one, and ends with
// its context, leaving the FIFO as it was.
func TestWriteOutputIntoAFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "p.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	isFIFO := func(when string) {
		t.Helper()
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
			t.Fatalf("%s: %s is no longer a FIFO: %v %v", when, fifo, st.Mode(), err)
		}
	}
	// A reader that was there before: it reads from the FIFO itself,
	// whatever the path names afterwards.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteOutput(context.Background(), fifo, []byte(outText)); err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != outText {
		t.Errorf("the reader got %q", got)
	}
	isFIFO("after a write")

	// A reader that comes later.
	done := make(chan error, 1)
	go func() { done <- WriteOutput(context.Background(), fifo, []byte(outText)) }()
	r, err = os.Open(fifo)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(r)
	r.Close()
	if err := <-done; err != nil || string(got) != outText {
		t.Errorf("a later reader got %q; %v", got, err)
	}
	isFIFO("after a write to a later reader")

	// No reader, and the command is stopped.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WriteOutput(ctx, fifo, []byte(outText)); !errors.Is(err, context.Canceled) {
		t.Errorf("no reader, cancelled: %v", err)
	}
	isFIFO("after a cancelled write")
}

// TestWriteOutputIntoADevice writes through a symlink to /dev/null, as
// --out /dev/null does: the link and the device are left as they were.
// Guarded: the write happens only once the plan says it writes into the
// device, so a broken plan cannot touch /dev/null.
func TestWriteOutputIntoADevice(t *testing.T) {
	before, err := os.Lstat(os.DevNull)
	if err != nil || before.Mode()&fs.ModeCharDevice == 0 {
		t.Skip("no character device at", os.DevNull)
	}
	link := filepath.Join(t.TempDir(), "null.md")
	mustSymlink(t, os.DevNull, link)
	p, err := planOutput(link)
	if err != nil || !p.Into || p.Target != os.DevNull {
		t.Fatalf("the plan for a link to %s is %+v, %v: not written, to leave the device alone", os.DevNull, p, err)
	}
	if err := WriteOutput(context.Background(), link, []byte(outText)); err != nil {
		t.Fatal(err)
	}
	checkLink(t, link, os.DevNull)
	after, err := os.Lstat(os.DevNull)
	if err != nil || after.Mode() != before.Mode() || after.Sys().(*syscall.Stat_t).Rdev != before.Sys().(*syscall.Stat_t).Rdev {
		t.Errorf("%s changed: %v -> %v (%v)", os.DevNull, before.Mode(), after.Mode(), err)
	}
}

func mustWrite(t *testing.T, path, text string, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // past the umask
		t.Fatal(err)
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// checkLink fails unless link is still a symlink to target.
func checkLink(t *testing.T, link, target string) {
	t.Helper()
	if to, err := os.Readlink(link); err != nil || to != target {
		t.Errorf("%s is no longer a link to %s: %q %v", link, target, to, err)
	}
}

// TestWriteOutputThroughADescriptor: /proc/self/fd/N (and /dev/stdout,
// /dev/fd/N) of a regular file, as `--out /dev/stdout >> log` gives, is
// written into as the shell writes it: the file stays the descriptor's
// (before, it was replaced by a new file, which the descriptor no longer
// reached, and the log's later lines were lost).
func TestWriteOutputThroughADescriptor(t *testing.T) {
	log := filepath.Join(t.TempDir(), "log.txt")
	mustWrite(t, log, "earlier\n", 0o644)
	f, err := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	before, _ := os.Stat(log)
	if err := WriteOutput(context.Background(), "/proc/self/fd/"+strconv.Itoa(int(f.Fd())), []byte(outText)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("after\n"); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(log)
	raw, _ := os.ReadFile(log)
	if !os.SameFile(before, after) || string(raw) != outText+"after\n" {
		t.Errorf("the descriptor's file was replaced (same file: %v), it holds %q", os.SameFile(before, after), raw)
	}
}

// TestWriteOutputRefusesAFileTheShellWould: a file its owner may not
// write is refused, though its directory would take a replacement.
func TestWriteOutputRefusesAFileTheShellWould(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes a 0444 file, as its shell does")
	}
	ro := filepath.Join(t.TempDir(), "ro.md")
	mustWrite(t, ro, "old", 0o444)
	if err := WriteOutput(context.Background(), ro, []byte(outText)); err == nil || !strings.Contains(err.Error(), "cannot write "+ro) {
		t.Errorf("a 0444 file: %v", err)
	}
	if raw, _ := os.ReadFile(ro); string(raw) != "old" {
		t.Errorf("the 0444 file was replaced: %q", raw)
	}
}
