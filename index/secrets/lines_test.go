package secrets

import (
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

func TestMaskLinesKeepsLines(t *testing.T) {
	text := secrettest.GoFile()
	got := MaskLinesString("main.go", text)
	if n, want := strings.Count(got, "\n"), strings.Count(text, "\n"); n != want {
		t.Fatalf("MaskLines has %d lines, the text %d:\n%s", n, want, got)
	}
	for _, s := range secrettest.All() {
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(got, line) {
				t.Errorf("MaskLines left %q:\n%s", line, got)
			}
		}
	}
	lines, src := strings.Split(got, "\n"), strings.Split(text, "\n")
	for i, want := range map[int]string{
		4:  `const awsKey = "AKIA…[REDACTED:aws-access-token]"`,
		7:  "\treturn \"ghp_…[REDACTED:github-pat]\"",
		10: `var slack = "xoxb…[REDACTED:slack-bot-token]"`,
		12: "const key = `----…[REDACTED:private-key]",
		13: "[REDACTED:private-key]",
		15: "[REDACTED:private-key]`",
	} {
		if lines[i-1] != want {
			t.Errorf("line %d = %q, want %q", i, lines[i-1], want)
		}
	}
	// Lines without a secret are untouched.
	for _, i := range []int{1, 3, 6, 8} {
		if lines[i-1] != src[i-1] {
			t.Errorf("line %d = %q, want %q", i, lines[i-1], src[i-1])
		}
	}
}

func TestMaskLinesCRLFAndBounds(t *testing.T) {
	text := "a SECRET\r\nSECRET b\r\nc"
	fs := []Finding{{Rule: "r", Start: 2, End: 16}, {Rule: "x", Start: 5, End: 99}}
	if got, want := MaskLines(text, fs), "a [REDACTED:r]\r\n[REDACTED:r] b\r\nc"; got != want {
		t.Errorf("MaskLines = %q, want %q", got, want)
	}
	if got := MaskLines(text, nil); got != text {
		t.Errorf("no findings: %q", got)
	}
}
