package clip

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// decodeOSC52 checks that seq is one plain OSC 52 clipboard sequence and
// returns the bytes it carries.
func decodeOSC52(t *testing.T, seq string) []byte {
	t.Helper()
	if !strings.HasPrefix(seq, osc52Prefix) || !strings.HasSuffix(seq, "\x07") {
		t.Fatalf("not an OSC 52 sequence: %.60q", seq)
	}
	b64 := strings.TrimSuffix(strings.TrimPrefix(seq, osc52Prefix), "\x07")
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("bad base64 in the sequence: %v", err)
	}
	return b
}

func TestOSC52Plain(t *testing.T) {
	var tty bytes.Buffer
	rep, err := Copy(context.Background(), payloadSample, Options{Method: "osc52", TTY: &tty, Getenv: envOf(), LookPath: lookIn(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != MethodOSC52 || rep.Bytes != len(payloadSample) || len(rep.Warnings) != 0 {
		t.Errorf("report = %+v", rep)
	}
	if got := decodeOSC52(t, tty.String()); !bytes.Equal(got, payloadSample) {
		t.Errorf("sequence carries %q, want %q", got, payloadSample)
	}
}

func TestOSC52SizeWarning(t *testing.T) {
	// 74,994 bytes encode to 99,992 base64 bytes, a 100,000-byte sequence.
	const largest = 74_994
	if osc52Len(largest) != OSC52Limit || osc52Len(largest+1) <= OSC52Limit {
		t.Fatalf("osc52Len(%d) = %d, boundary moved", largest, osc52Len(largest))
	}
	for _, n := range []int{largest, largest + 1, 300_000} {
		payload := bytes.Repeat([]byte("é"), n/2)
		payload = append(payload, bytes.Repeat([]byte("a"), n%2)...)
		var tty bytes.Buffer
		rep, err := Copy(context.Background(), payload, Options{TTY: &tty, Getenv: envOf(), LookPath: lookIn(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Method != MethodOSC52 {
			t.Fatalf("method = %q: OSC 52 must still be sent over the limit", rep.Method)
		}
		if tty.Len() != osc52Len(n) {
			t.Errorf("sequence is %d bytes, want %d", tty.Len(), osc52Len(n))
		}
		if got := decodeOSC52(t, tty.String()); !bytes.Equal(got, payload) {
			t.Errorf("%d bytes: payload garbled", n)
		}
		warned := len(rep.Warnings) == 1 && strings.Contains(rep.Warnings[0], "over the 100000 many terminals accept")
		if want := n > largest; warned != want {
			t.Errorf("%d bytes: warnings %q, want a size warning: %v", n, rep.Warnings, want)
		}
	}
}

func TestOSC52Screen(t *testing.T) {
	var tty bytes.Buffer
	payload := bytes.Repeat(payloadSample, 20)
	rep, err := Copy(context.Background(), payload, Options{TTY: &tty, Getenv: envOf("STY=42.pts-1.host"), LookPath: lookIn(nil)})
	if err != nil || rep.Method != MethodOSC52 {
		t.Fatalf("report %+v, err %v", rep, err)
	}
	seq := tty.String()
	const start, end, join = "\x1bP", "\x1b\\", "\x1b\\\x1bP"
	if !strings.HasPrefix(seq, start+osc52Prefix) || !strings.HasSuffix(seq, "\x07"+end) {
		t.Fatalf("not a screen-wrapped OSC 52 sequence: %.40q…%q", seq, seq[len(seq)-10:])
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(seq, start), end)
	chunks := strings.Split(inner, join)
	if len(chunks) < 2 {
		t.Fatalf("payload of %d bytes was not split into DCS chunks", len(payload))
	}
	for i, c := range chunks {
		// screen refuses strings over its buffer (768 bytes in old
		// versions); go-osc52 cuts at 76.
		if len(c) > 100 {
			t.Errorf("chunk %d is %d bytes", i, len(c))
		}
	}
	if got := decodeOSC52(t, strings.Join(chunks, "")); !bytes.Equal(got, payload) {
		t.Error("screen-wrapped sequence carries a different payload")
	}
}

func TestOSC52Tmux(t *testing.T) {
	cases := []struct {
		name, probe string
		wrapped     bool
		warn        string
	}{
		{name: "set-clipboard on", probe: "on 0\n"},
		{name: "set-clipboard on and passthrough", probe: "on 1\n"},
		{name: "passthrough only (3.3 flag)", probe: "external 1\n", wrapped: true},
		{name: "passthrough only (3.4 choice)", probe: "off all\n", wrapped: true},
		{name: "neither", probe: "external off\n", warn: "sending OSC 52 anyway"},
		{name: "tmux answers nothing", probe: "", warn: "could not ask tmux"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tmux := fakeTmux(t, t.TempDir(), tc.probe)
			var tty bytes.Buffer
			rep, err := Copy(context.Background(), payloadSample, Options{Method: "osc52", TTY: &tty,
				Getenv: envOf("TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%1"), LookPath: lookIn(map[string]string{"tmux": tmux})})
			if err != nil || rep.Method != MethodOSC52 {
				t.Fatalf("report %+v, err %v", rep, err)
			}
			seq := tty.String()
			const start, end = "\x1bPtmux;\x1b", "\x1b\\"
			if tc.wrapped {
				if !strings.HasPrefix(seq, start) || !strings.HasSuffix(seq, end) {
					t.Fatalf("not wrapped for tmux passthrough: %.30q", seq)
				}
				seq = strings.TrimSuffix(strings.TrimPrefix(seq, start), end)
			}
			if got := decodeOSC52(t, seq); !bytes.Equal(got, payloadSample) {
				t.Error("payload garbled")
			}
			joined := strings.Join(rep.Warnings, "\n")
			if tc.warn == "" && joined != "" || !strings.Contains(joined, tc.warn) {
				t.Errorf("warnings %q, want %q", rep.Warnings, tc.warn)
			}
		})
	}
}

// TestAutoSkipsTmuxThatDrops: under tmux's default set-clipboard external,
// OSC 52 would vanish while Copy reported success; auto must use the file
// and say how to enable OSC 52.
func TestAutoSkipsTmuxThatDrops(t *testing.T) {
	dir := t.TempDir()
	tmux := fakeTmux(t, dir, "external 0\nSSH_CONNECTION=1 2 3 4\n")
	var tty bytes.Buffer
	file := filepath.Join(dir, "clipboard.txt")
	rep, err := Copy(context.Background(), payloadSample, Options{TTY: &tty, File: file,
		Getenv: envOf("TMUX=/tmp/t,1,0"), LookPath: lookIn(map[string]string{"tmux": tmux})})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Method != MethodFile || tty.Len() != 0 {
		t.Errorf("report %+v, %d bytes to the terminal; want the file and nothing sent", rep, tty.Len())
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "tmux set -g set-clipboard on") {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}

func TestAutoSkipsOSC52OverTmuxLimit(t *testing.T) {
	dir := t.TempDir()
	tmux := fakeTmux(t, dir, "on 0\n")
	var tty bytes.Buffer
	rep, err := Copy(context.Background(), make([]byte, 800_000), Options{TTY: &tty, File: filepath.Join(dir, "c.txt"),
		Getenv: envOf("TMUX=/tmp/t,1,0", "SSH_TTY=/dev/pts/0"), LookPath: lookIn(map[string]string{"tmux": tmux})})
	if err != nil || rep.Method != MethodFile || tty.Len() != 0 {
		t.Fatalf("report %+v, err %v, %d bytes sent; want the file", rep, err, tty.Len())
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "tmux's 1048576-byte input limit") {
		t.Errorf("warnings = %q", rep.Warnings)
	}
}

type brokenTTY struct{}

func (brokenTTY) Write([]byte) (int, error) { return 0, errors.New("input/output error") }

func TestBrokenTerminalFallsBack(t *testing.T) {
	file := filepath.Join(t.TempDir(), "clipboard.txt")
	rep, err := Copy(context.Background(), payloadSample, Options{TTY: brokenTTY{}, File: file, Getenv: envOf("SSH_TTY=x"), LookPath: lookIn(nil)})
	if err != nil || rep.Method != MethodFile {
		t.Fatalf("report %+v, err %v", rep, err)
	}
	want := "OSC 52 to the terminal failed: input/output error; trying the next way"
	if len(rep.Warnings) != 1 || rep.Warnings[0] != want {
		t.Errorf("warnings = %q, want [%q]", rep.Warnings, want)
	}
}

func TestParseTmuxProbe(t *testing.T) {
	cases := []struct {
		out  string
		want mux
	}{
		{"on 0\n-SSH_CONNECTION\n", mux{setClipboard: "on", sshKnown: true}},
		{"external 1\nDISPLAY=:0\nSSH_CONNECTION=a b c d\n", mux{setClipboard: "external", passthrough: true, ssh: true, sshKnown: true}},
		{"off all\n", mux{setClipboard: "off", passthrough: true}},
		{"on\n", mux{setClipboard: "on"}},
		{"", mux{probeErr: "tmux printed nothing"}},
		{"\n", mux{probeErr: "tmux printed no settings"}},
	}
	for _, tc := range cases {
		var m mux
		parseTmuxProbe([]byte(tc.out), &m)
		if m != tc.want {
			t.Errorf("parseTmuxProbe(%q) = %+v, want %+v", tc.out, m, tc.want)
		}
	}
}
