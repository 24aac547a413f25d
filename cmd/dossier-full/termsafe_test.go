package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Escape sequences a hostile file name or file content may carry: an
// OSC 52 clipboard write, a screen clear, a title change, a one-rune C1
// CSI, a bare CR and backspaces.
const (
	evilName    = "evil\x1b]52;c;aGk=\x07\x1b[2J.go"
	evilContent = "package evil\n\n// Evil prints \x1b]52;c;cHduZWQ=\x07 and \x1b[2J and \x1b]0;title\x07 and \u009b31m here.\n" +
		"// Overwrite\rthis\b\b line.\nfunc Evil() string { return \"evil\" }\n"
)

// runTTY runs the CLI as if stdout and stderr were terminals.
func runTTY(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := executeOn(context.Background(), args, &out, &errb, func(io.Writer) bool { return true })
	return out.String(), errb.String(), code
}

// assertInert fails when s holds a byte or rune a terminal acts on.
func assertInert(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			t.Errorf("%s holds %U:\n%q", what, r, s)
			return
		}
	}
}

func TestTerminalOutputIsEscaped(t *testing.T) {
	root := flowWorkspace(t)
	if err := os.WriteFile(filepath.Join(root, evilName), []byte(evilContent), 0o644); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	r := "--root=" + root
	tty := func(args ...string) string {
		t.Helper()
		out, errOut, code := runTTY(t, args...)
		assertInert(t, "stdout of "+args[0], out)
		assertInert(t, "stderr of "+args[0], errOut)
		if code != 0 {
			t.Fatalf("dossier %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	escapedName := `evil\x1b]52;c;aGk=\a\x1b[2J.go`

	tty("index", "--verbose", r)
	out := tty("search", "Evil", r)
	if !strings.Contains(out, escapedName) {
		t.Errorf("search does not show the escaped name %s:\n%s", escapedName, out)
	}
	out = tty("evidence", "add", evilName, r)
	if !strings.Contains(out, "✓") || !strings.Contains(out, `\x1b`) {
		t.Errorf("evidence add:\n%s", out)
	}
	out = tty("evidence", "status", r)
	if !strings.Contains(out, `\x1b`) {
		t.Errorf("evidence status does not show the escaped name:\n%s", out)
	}
	out = tty("assemble", r)
	for _, want := range []string{`\x1b]52;c;cHduZWQ=\a`, `\x1b[2J`, `\u009b31m`, `Overwrite\rthis\b\b line.`} {
		if !strings.Contains(out, want) {
			t.Errorf("assemble on a terminal lacks %s:\n%s", want, out)
		}
	}
	// An error naming the file goes to stderr escaped too.
	_, errOut, code := runTTY(t, "evidence", "add", evilName+"::900,901", r)
	assertInert(t, "stderr of a failed add", errOut)
	if code == 0 || !strings.Contains(errOut, `\x1b`) {
		t.Errorf("a bad range on the evil file: exit %d, stderr %q", code, errOut)
	}

	// A pipe or a file gets the bytes as they are.
	md, errOut, code := runCLI(t, "assemble", r)
	if code != 0 {
		t.Fatalf("assemble: %s", errOut)
	}
	if !strings.Contains(md, "\x1b]52;c;cHduZWQ=\x07") || !strings.Contains(md, "Overwrite\rthis\b\b") {
		t.Errorf("assemble to a pipe changed the content:\n%q", md)
	}
	saved, _ := os.ReadFile(filepath.Join(flowDir(t, root), "build", "prompt.mdctx"))
	if string(saved) != md {
		t.Error("assemble to a pipe differs from build/prompt.mdctx")
	}
	tty("assemble", "--out", filepath.Join(root, "p.md"), r)
	if got, _ := os.ReadFile(filepath.Join(root, "p.md")); string(got) != md {
		t.Errorf("--out on a terminal wrote %q, want the pipe's bytes", got)
	}
}
