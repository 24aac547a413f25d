package main

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// initBudget is the most memory one of dossier's own packages may
// allocate in its init: every process pays for package init before any
// command runs, so anything heavier (compiled patterns, tables, grammars)
// is built on first use instead.
const initBudget = 128 << 10

// TestOwnPackageInitIsLight runs the binary with the runtime's init trace
// and checks that none of dossier's packages does heavy work at init.
func TestOwnPackageInitIsLight(t *testing.T) {
	cmd := dossier("--help")
	cmd.Env = append(cmd.Env, "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("dossier --help: %v\n%s", err, stderr.String())
	}
	seen := 0
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init <pkg> @<t> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/dossierhq/dossier/") {
			continue
		}
		seen++
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("unexpected init trace line %q", sc.Text())
		}
		if n > initBudget {
			t.Errorf("%s allocates %d bytes in its init (budget %d): build it on first use", f[1], n, initBudget)
		}
	}
	if seen == 0 {
		t.Fatalf("no init trace of dossier's packages in:\n%s", stderr.String())
	}
}
