package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestCoverage measures two small repositories with the real ctags and a
// real index: what both hold is found, a construct signature (which the
// index does not name) is a miss, definitions in a function or callback
// body (a C++ macro's too: Catch's TEST_CASE), an import list's `type
// Page` and the name ctags makes up for a PHP anonymous class are counted
// apart.
func TestCoverage(t *testing.T) {
	if out, err := exec.Command("ctags", "--version").Output(); err != nil || !strings.HasPrefix(string(out), "Universal Ctags") {
		t.Skip("Universal Ctags is not installed (apt-get install universal-ctags)")
	}
	root := t.TempDir()
	for _, f := range []string{"box.ts", "util.py", "cases.cpp", "migration.php"} {
		src, err := os.ReadFile(filepath.Join("testdata", "repo", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		language    string
		found, tags int
		left        map[string][2]int
		misses      []string
	}{
		{"TypeScript", 4, 5, map[string][2]int{leftLocal: {0, 2}, leftAlias: {0, 1}},
			[]string{"box.ts:15 method new in interface Made"}},
		{"Python", 3, 3, map[string][2]int{leftLocal: {0, 3}}, nil},
		{"C++", 1, 1, map[string][2]int{leftLocal: {0, 1}}, nil},
		{"PHP", 1, 1, map[string][2]int{leftAnon: {0, 1}}, nil},
	}
	for _, tt := range tests {
		rep, err := run(root, tt.language, true, 10)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Found != tt.found || rep.Tags != tt.tags || !reflect.DeepEqual(rep.Left, tt.left) ||
			!reflect.DeepEqual(rep.Misses, tt.misses) {
			t.Errorf("%s: found %d of %d, left out %v, misses %q; want %d of %d, %v, %q", tt.language,
				rep.Found, rep.Tags, rep.Left, rep.Misses, tt.found, tt.tags, tt.left, tt.misses)
		}
	}
}
