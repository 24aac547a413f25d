package clip

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	osc52 "github.com/aymanbagabas/go-osc52/v2"
)

// payloadSample has what breaks naive piping: NUL, invalid UTF-8, CRLF,
// multi-byte runes, no trailing newline.
var payloadSample = []byte("# prompt\r\nline 2 \x00 \xff\xfe ünïcode ✓ 日本\n\tlast line without newline")

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// envOf is a Getenv over "KEY=value" pairs; everything else is unset.
func envOf(kv ...string) func(string) string {
	m := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return func(k string) string { return m[k] }
}

// lookIn is a LookPath that finds only the named programs, at the given
// paths.
func lookIn(paths map[string]string) func(string) (string, error) {
	return func(name string) (string, error) {
		if p, ok := paths[name]; ok {
			return p, nil
		}
		return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
	}
}

// script writes an executable shell script named name into dir.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeTmux writes a tmux stand-in that prints out, as the real one answers
// probeTmux.
func fakeTmux(t *testing.T, dir, out string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "tmux.out"), []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return script(t, dir, "tmux", `cat "`+filepath.Join(dir, "tmux.out")+`"`)
}

// planNames is the plan for o as names: "osc52" (with "+tmux" or
// "+screen" when wrapped), tool names, "file"; and the warnings.
func planNames(t *testing.T, o Options) ([]string, []string) {
	t.Helper()
	c := newCopier([]byte("payload"), o)
	steps, err := c.plan(context.Background())
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	names := []string{}
	for _, s := range steps {
		switch s.kind {
		case MethodNative:
			names = append(names, s.tool.name)
		case MethodOSC52:
			n := "osc52"
			switch c.mux.mode() {
			case osc52.TmuxMode:
				n += "+tmux"
			case osc52.ScreenMode:
				n += "+screen"
			}
			names = append(names, n)
		default:
			names = append(names, s.kind)
		}
	}
	return names, c.rep.Warnings
}

func TestAutoOrder(t *testing.T) {
	const (
		tmuxOnLocal     = "on 0\n-SSH_CONNECTION\nDISPLAY=:0\n"
		tmuxOnSSH       = "on 0\nSSH_CONNECTION=10.0.0.1 5000 10.0.0.2 22\n"
		tmuxExternal    = "external 0\n-SSH_CONNECTION\n"
		tmuxPassthrough = "external 1\n"
	)
	all := []string{"wl-copy", "xclip", "xsel", "pbcopy"}
	cases := []struct {
		name   string
		env    []string
		tools  []string
		tty    bool
		goos   string
		tmux   string // fake tmux output; "" = tmux not installed
		method string
		noFile bool
		want   []string
		warn   string // a warning must contain this; "" = no warnings
	}{
		{name: "nothing at all", want: []string{"file"}},
		{name: "terminal only", tty: true, want: []string{"osc52", "file"}},
		{name: "local X with terminal", env: []string{"DISPLAY=:0"}, tools: all, tty: true,
			want: []string{"xclip", "xsel", "osc52", "file"}},
		{name: "X display, only xsel installed, no terminal", env: []string{"DISPLAY=:0"}, tools: []string{"xsel"},
			want: []string{"xsel", "file"}},
		{name: "display but no tools", env: []string{"DISPLAY=:0", "WAYLAND_DISPLAY=wayland-0"}, tty: true,
			want: []string{"osc52", "file"}},
		{name: "wayland with xwayland", env: []string{"WAYLAND_DISPLAY=wayland-0", "DISPLAY=:0"}, tools: all, tty: true,
			want: []string{"wl-copy", "xclip", "xsel", "osc52", "file"}},
		{name: "ssh with X forwarding", env: []string{"SSH_CONNECTION=1 2 3 4", "DISPLAY=localhost:10.0"}, tools: all, tty: true,
			want: []string{"osc52", "xclip", "xsel", "file"}},
		{name: "ssh_tty alone", env: []string{"SSH_TTY=/dev/pts/3"}, tools: all, tty: true,
			want: []string{"osc52", "file"}},
		{name: "ssh without terminal", env: []string{"SSH_CLIENT=1 2 3"}, tools: all,
			want: []string{"file"}},
		{name: "macOS local", goos: "darwin", tools: all, tty: true,
			want: []string{"pbcopy", "osc52", "file"}},
		{name: "macOS over ssh", goos: "darwin", env: []string{"SSH_TTY=/dev/ttys001"}, tools: all, tty: true,
			want: []string{"osc52", "pbcopy", "file"}},
		{name: "screen", env: []string{"STY=123.pts-0.host"}, tty: true,
			want: []string{"osc52+screen", "file"}},
		{name: "screen over ssh with X", env: []string{"STY=1.x", "SSH_CONNECTION=1 2 3 4", "DISPLAY=:10"}, tools: all, tty: true,
			want: []string{"osc52+screen", "xclip", "xsel", "file"}},
		{name: "tmux on, attached locally", env: []string{"TMUX=/tmp/s,1,0", "DISPLAY=:0"}, tools: []string{"xclip"}, tty: true, tmux: tmuxOnLocal,
			want: []string{"xclip", "osc52", "file"}},
		{name: "tmux on, attached over ssh since", env: []string{"TMUX=/tmp/s,1,0", "DISPLAY=:0"}, tools: []string{"xclip"}, tty: true, tmux: tmuxOnSSH,
			want: []string{"osc52", "xclip", "file"}},
		{name: "tmux started over ssh, attached locally now", env: []string{"TMUX=/tmp/s,1,0", "SSH_CONNECTION=1 2 3 4", "DISPLAY=:0"}, tools: []string{"xclip"}, tty: true, tmux: tmuxOnLocal,
			want: []string{"xclip", "osc52", "file"}},
		{name: "tmux external drops OSC 52", env: []string{"TMUX=/tmp/s,1,0", "SSH_TTY=/dev/pts/1"}, tty: true, tmux: tmuxExternal,
			want: []string{"file"}, warn: "set -g set-clipboard on"},
		{name: "tmux passthrough only", env: []string{"TMUX=/tmp/s,1,0", "SSH_TTY=/dev/pts/1"}, tty: true, tmux: tmuxPassthrough,
			want: []string{"osc52+tmux", "file"}},
		{name: "tmux that cannot be asked", env: []string{"TMUX=/tmp/s,1,0", "SSH_TTY=/dev/pts/1"}, tty: true,
			want: []string{"osc52", "file"}},
		{name: "tmux without terminal is not asked", env: []string{"TMUX=/tmp/s,1,0", "DISPLAY=:0"}, tools: []string{"xsel"}, tmux: tmuxExternal,
			want: []string{"xsel", "file"}},
		{name: "no file given", env: []string{"DISPLAY=:0"}, tools: all, noFile: true,
			want: []string{"xclip", "xsel"}},
		{name: "method native picks display tools", method: "native", env: []string{"DISPLAY=:0"}, tools: all, tty: true,
			want: []string{"xclip", "xsel", "file"}},
		{name: "method native without display tries all installed", method: "Native", tools: []string{"xsel", "pbcopy"}, tty: true,
			want: []string{"xsel", "pbcopy", "file"}},
		{name: "method native with nothing installed", method: "native", env: []string{"DISPLAY=:0"},
			want: []string{"file"}, warn: "no clipboard tool found"},
		{name: "method osc52 without terminal", method: "osc52", tools: all, env: []string{"DISPLAY=:0"},
			want: []string{"file"}, warn: "needs a terminal"},
		{name: "method osc52 through tmux that drops it", method: "osc52", tty: true, env: []string{"TMUX=/tmp/s,1,0"}, tmux: tmuxExternal,
			want: []string{"osc52", "file"}, warn: "sending OSC 52 anyway"},
		{name: "method file", method: "file", tools: all, tty: true, env: []string{"DISPLAY=:0", "SSH_TTY=x"},
			want: []string{"file"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			paths := map[string]string{}
			for _, n := range tc.tools {
				paths[n] = "/fake/bin/" + n
			}
			if tc.tmux != "" {
				paths["tmux"] = fakeTmux(t, t.TempDir(), tc.tmux)
			}
			o := Options{Method: tc.method, Getenv: envOf(tc.env...), LookPath: lookIn(paths), goos: tc.goos}
			if o.goos == "" {
				o.goos = "linux"
			}
			if tc.tty {
				o.TTY = &bytes.Buffer{}
			}
			if !tc.noFile {
				o.File = "/fake/clipboard.txt"
			}
			got, warnings := planNames(t, o)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("order = %v, want %v", got, tc.want)
			}
			joined := strings.Join(warnings, "\n")
			if tc.warn == "" && len(warnings) > 0 {
				t.Errorf("unexpected warnings: %q", warnings)
			}
			if tc.warn != "" && !strings.Contains(joined, tc.warn) {
				t.Errorf("warnings %q do not mention %q", warnings, tc.warn)
			}
		})
	}
}

func TestUnknownMethod(t *testing.T) {
	file := filepath.Join(t.TempDir(), "clip.txt")
	_, err := Copy(context.Background(), []byte("x"), Options{Method: "carrier-pigeon", File: file})
	if err == nil || !strings.Contains(err.Error(), "auto, osc52, native or file") {
		t.Fatalf("err = %v, want one naming the valid methods", err)
	}
	if _, statErr := os.Stat(file); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("an unknown method still wrote the file")
	}
}

func TestMethodFileNeedsPath(t *testing.T) {
	_, err := Copy(context.Background(), []byte("x"), Options{Method: "file"})
	if err == nil || !strings.Contains(err.Error(), "file path") {
		t.Fatalf("err = %v, want one asking for a file path", err)
	}
}

func TestNothingAvailableAndNoFile(t *testing.T) {
	rep, err := Copy(context.Background(), []byte("abc"), Options{Getenv: envOf(), LookPath: lookIn(nil)})
	if err == nil {
		t.Fatal("Copy reported success with nowhere to copy to")
	}
	for _, want := range []string{"no terminal or clipboard tool", "no fallback file", "--out"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err %q does not say %q", err, want)
		}
	}
	if rep.Method != "" || rep.Bytes != 3 {
		t.Errorf("report = %+v, want no method and 3 bytes", rep)
	}
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	file := filepath.Join(t.TempDir(), "clip.txt")
	tty := &bytes.Buffer{}
	_, err := Copy(ctx, []byte("x"), Options{TTY: tty, File: file, Getenv: envOf(), LookPath: lookIn(nil)})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if tty.Len() != 0 {
		t.Errorf("wrote %q to the terminal after cancellation", tty.String())
	}
	if _, statErr := os.Stat(file); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("wrote the file after cancellation")
	}
}

// TestOddInputs runs Copy on edge-case payloads and options, which must
// neither panic nor lose the payload.
func TestOddInputs(t *testing.T) {
	dir := t.TempDir()
	payloads := [][]byte{nil, {}, {0}, []byte("\x1b]52;c;!\x07\x1b\\"), bytes.Repeat([]byte{0xff}, 1000)}
	for i, p := range payloads {
		for _, m := range []string{"", "auto", "osc52", "native", "file", " FILE "} {
			file := filepath.Join(dir, "out", m, string(rune('a'+i)))
			rep, err := Copy(context.Background(), p, Options{Method: m, File: file, TTY: &bytes.Buffer{},
				Getenv: envOf("TMUX=x", "STY=y"), LookPath: lookIn(nil)})
			if err != nil {
				t.Fatalf("payload %d, method %q: %v", i, m, err)
			}
			if rep.Bytes != len(p) {
				t.Errorf("Bytes = %d, want %d", rep.Bytes, len(p))
			}
			if rep.Method == MethodFile {
				got, err := os.ReadFile(rep.Path)
				if err != nil || !bytes.Equal(got, p) {
					t.Errorf("file holds %q (%v), want %q", got, err, p)
				}
			}
		}
	}
}
