package discover

import (
	"os/exec"
	"reflect"
	"testing"
)

// TestTrackedInDefaultIgnored: a default-ignored folder (bin/, build/,
// node_modules/) hides no file git tracks: the walk and Check find a
// project's bin/setup and bin/tool-popup, while untracked build output
// beside them, a file-name default (a tracked lock file), a folder git
// tracks nothing in and dossier's own .dossier/ (committed all the same)
// stay skipped as default_ignore.
func TestTrackedInDefaultIgnored(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH")
	}
	root := tree(t, map[string]string{
		"main.go": "package main\n", "bin/setup": "#!/bin/sh\necho setup\n", "bin/tool-popup": "#!/bin/sh\n",
		"bin/out.bin": "built\n", "bin/sub/helper.sh": "#!/bin/sh\n", "bin/sub/cache.tmp": "x\n",
		"web/node_modules/vendored/index.js": "module.exports = 1\n", "web/node_modules/other/index.js": "x\n",
		"build/out.o.txt": "built\n", "go.sum": "h1\n",
		// a plain `git add -A` commits dossier's own folder: never a source
		".dossier/config.toml": "x = 1\n", ".dossier/flows/f1/turns/001.answer.md": "an answer\n",
	})
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-f", "main.go", "bin/setup", "bin/tool-popup", "bin/sub/helper.sh", "web/node_modules/vendored/index.js", "go.sum", ".dossier")
	git("commit", "-qm", "init")

	got, skips := walk(t, root, Options{})
	want := []string{"bin/setup", "bin/sub/helper.sh", "bin/tool-popup", "main.go", "web/node_modules/vendored/index.js"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("walk found %q, want %q", got, want)
	}
	reasons := map[string]string{}
	for _, s := range skips.List() {
		reasons[s.Path] = s.Reason
	}
	for _, p := range []string{"bin/out.bin", "bin/sub/cache.tmp", "build", "go.sum", "web/node_modules/other"} {
		if reasons[p] != ReasonDefault {
			t.Errorf("%s: skipped as %q, want %q", p, reasons[p], ReasonDefault)
		}
	}
	for rel, reason := range map[string]string{"bin/setup": "", "bin/sub/helper.sh": "", "bin/out.bin": ReasonDefault, "build/out.o.txt": ReasonDefault,
		".dossier/flows/f1/turns/001.answer.md": ReasonDefault} {
		if _, got, err := Check(root, rel, Options{}); got != reason || err != nil {
			t.Errorf("Check(%s) = %q, %v; want %q", rel, got, err, reason)
		}
	}
}
