// Package linkcheck checks, in tests, which packages a binary links: what
// a binary links, its package init costs every process that runs it.
package linkcheck

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Deps lists the packages the package in the current directory links
// (`go list -deps .`), failing t unless want is among them (a check that
// the list is real).
func Deps(t testing.TB, want string) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(goBin, "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 || !strings.Contains(string(out), want+"\n") {
		t.Fatalf("go list -deps listed no %s:\n%s", want, out)
	}
	return deps
}

// Matching returns the packages of deps that banned names: a package, or
// with "/..." a package and those under it.
func Matching(deps, banned []string) []string {
	var out []string
	for _, dep := range deps {
		for _, bad := range banned {
			tree, ok := strings.CutSuffix(bad, "/...")
			if dep == bad || ok && (dep == tree || strings.HasPrefix(dep, tree+"/")) {
				out = append(out, dep)
				break
			}
		}
	}
	return out
}
