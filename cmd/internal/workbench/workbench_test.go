package workbench

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/cmd/internal/cli/cobracli"
	"github.com/dossierhq/dossier/cmd/internal/helptopic"
)

// TestVersionFlag: dossier-workbench --version prints its name and
// build version, as every dossier binary does.
func TestVersionFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := cobracli.Execute(context.Background(), []string{"--version"}, &stdout, &stderr, NewCommand)
	want := "dossier-workbench " + cli.Version().String() + "\n"
	if code != cli.ExitOK || stdout.String() != want || stderr.Len() > 0 {
		t.Errorf("--version: exit %d, stdout %q, stderr %q; want %q", code, stdout.String(), stderr.String(), want)
	}
}

// TestCommandErrors: dossier-workbench says what is wrong in one line,
// with dossier's exit codes: a flag it does not take is a usage error
// pointing at its own --help, and without a terminal it names the
// command that works without one.
func TestCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--bogus"}, cli.ExitUsage, "dossier: unknown flag: --bogus\nrun `dossier-workbench --help` for usage\n"},
		{[]string{"extra"}, cli.ExitUsage, "run `dossier-workbench --help` for usage"},
		{[]string{"--root", t.TempDir(), "--theme", "dark"}, cli.ExitError, "the workbench needs a terminal on stdin and stdout; without one, `dossier index` indexes"},
	} {
		if tc.code == cli.ExitError && cli.IsTerminal() {
			continue // go test on a terminal: this process has one
		}
		var stdout, stderr bytes.Buffer
		code := cobracli.Execute(context.Background(), tc.args, &stdout, &stderr, NewCommand)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) || stdout.Len() > 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.want)
		}
	}
}

// TestEveryFlagIsDocumented: dossier-workbench's command has its help and
// every flag its usage line (helptopic.Undocumented).
func TestEveryFlagIsDocumented(t *testing.T) {
	for _, m := range helptopic.Undocumented(NewCommand(context.Background(), io.Discard, io.Discard)) {
		t.Error(m)
	}
}
