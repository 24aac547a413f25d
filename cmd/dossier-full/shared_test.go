package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/pg/pgtest"
)

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// acmeRepo commits root as one commit of a repository whose origin is
// github.com/Acme/NAME.
func acmeRepo(t *testing.T, root, name string) {
	t.Helper()
	gitRun(t, root, "init", "-q")
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-qm", "one")
	gitRun(t, root, "remote", "add", "origin", "git@github.com:Acme/"+name+".git")
}

// cloneOf clones root with the origin spelled another way (the same
// repository for a shared store).
func cloneOf(t *testing.T, root, name string) string {
	t.Helper()
	clone := filepath.Join(t.TempDir(), "clone")
	gitRun(t, filepath.Dir(clone), "clone", "-q", root, clone)
	gitRun(t, clone, "remote", "set-url", "origin", "https://github.com/Acme/"+name)
	return clone
}

// TestIndexStoreCLI drives the shared store as a user does, on a real
// PostgreSQL server: publish from one clone, reuse from another (which
// indexes nothing), search it and the whole store, look at its status,
// and unlink.
func TestIndexStoreCLI(t *testing.T) {
	url := pgtest.Start(t)
	root := workspace(t, 30)
	acmeRepo(t, root, "Widgets")

	out, errOut, code := runCLI(t, "index", "--root", root, "--store", url)
	if code != 0 || !strings.Contains(out, "published github.com/Acme/Widgets@") {
		t.Fatalf("publish: %d\n%s\n%s", code, out, errOut)
	}
	clone := cloneOf(t, root, "Widgets")
	out, errOut, code = runCLI(t, "index", "--root", clone, "--store", url)
	if code != 0 || !strings.Contains(out, "already indexed: github.com/Acme/Widgets@") {
		t.Fatalf("a second clone: %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(clone, ".dossier", "index.db")); !os.IsNotExist(err) {
		t.Fatalf("the second clone indexed: %v", err)
	}
	local, _, _ := runCLI(t, "search", "--root", root, "--mode", "text", "--json", "F3_7 does a thing")
	shared, errOut, code := runCLI(t, "search", "--root", clone, "--mode", "text", "--json", "F3_7 does a thing")
	var lr, sr struct{ Results []struct{ ID, Path string } }
	if code != 0 || json.Unmarshal([]byte(local), &lr) != nil || json.Unmarshal([]byte(shared), &sr) != nil || len(sr.Results) == 0 {
		t.Fatalf("search the clone: %d\n%s\n%s", code, shared, errOut)
	}
	if len(lr.Results) != len(sr.Results) || lr.Results[0] != sr.Results[0] {
		t.Errorf("the clone answers otherwise: %+v vs %+v", sr.Results, lr.Results)
	}
	out, errOut, code = runCLI(t, "search", "--root", t.TempDir(), "--store", url, "--all-repos", "--json", "--mode", "text", "F3_7 does a thing")
	if code != 0 || !strings.Contains(out, `"repo":"github.com/Acme/Widgets"`) {
		t.Fatalf("search --all-repos from another directory: %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "store", "status", "--store", url, "--json")
	if code != 0 || !strings.Contains(out, `"Name": "github.com/Acme/Widgets"`) || !strings.Contains(out, `"State": "ready"`) {
		t.Fatalf("store status: %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runCLI(t, "search", "--root", t.TempDir(), "--store", url, "--repo", "github.com/nobody/else", "x")
	if code == 0 || !strings.Contains(errOut, "holds no snapshot of \"github.com/nobody/else\"") {
		t.Fatalf("an unknown repository: %d\n%s\n%s", code, out, errOut)
	}
	// An edit: index --store indexes that file only; the store answers
	// for the rest.
	f1 := filepath.Join(clone, "pkg000", "f1.go")
	src, _ := os.ReadFile(f1)
	os.WriteFile(f1, append(src, "// Okapi marks the edit.\nfunc Okapi() {}\n"...), 0o644)
	out, errOut, code = runCLI(t, "index", "--root", clone, "--store", url)
	if code != 0 || !strings.Contains(out, "1 changed files indexed here") {
		t.Fatalf("index --store with an edit: %d\n%s\n%s", code, out, errOut)
	}
	if out, _, _ := runCLI(t, "search", "--root", clone, "--mode", "symbol", "Okapi"); !strings.Contains(out, "pkg000/f1.go") {
		t.Fatalf("the edit is not found: %s", out)
	}
	var ls, cs struct{ Files int }
	json.Unmarshal([]byte(must(t, "stats", "--root", root, "--json")), &ls)
	json.Unmarshal([]byte(must(t, "stats", "--root", clone, "--json")), &cs)
	if ls.Files < 31 || cs.Files != ls.Files {
		t.Errorf("stats: the edited clone has %d files, the published workspace %d", cs.Files, ls.Files)
	}
	_, errOut, code = runCLI(t, "index", "--root", clone)
	if code != 0 || !strings.Contains(errOut, "unlinked from the shared store") {
		t.Fatalf("unlink: %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(clone, ".dossier", "shared.json")); !os.IsNotExist(err) {
		t.Fatalf("still linked: %v", err)
	}
	if _, errOut, code = runCLI(t, "index", "--root", root, "--store", url+"&password=x"); code == 0 || !strings.Contains(errOut, "PGPASSWORD") {
		t.Fatalf("a password in the URL: %d\n%s", code, errOut)
	}
}

// TestIndexStoreAfterItsSnapshotWent: a clone linked to a snapshot that
// is gone (gc, a rebuilt store) and moved to a new commit indexes itself
// and publishes as a clone without a link would: the indexer reads its
// own index, never the store the workspace is linked to.
func TestIndexStoreAfterItsSnapshotWent(t *testing.T) {
	url := pgtest.Start(t)
	root := workspace(t, 6)
	acmeRepo(t, root, "Gone")
	must(t, "index", "--root", root, "--store", url)
	l, linked, err := store.ReadLink(root)
	if err != nil || !linked {
		t.Fatalf("not linked: %v", err)
	}
	l.Snapshot += 1000 // gone
	if err := store.WriteLink(root, l); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "pkg000", "new.go"), []byte("package p0\n\n// Gnu is new.\nfunc Gnu() {}\n"), 0o644)
	gitRun(t, root, "add", "-A")
	gitRun(t, root, "commit", "-qm", "two")
	out, errOut, code := runCLI(t, "index", "--root", root, "--store", url)
	if code != 0 || !strings.Contains(out, "published github.com/Acme/Gone@") {
		t.Fatalf("index --store at a new commit, linked to a gone snapshot: %d\n%s\n%s", code, out, errOut)
	}
	if out, _, _ := runCLI(t, "search", "--root", root, "--mode", "symbol", "Gnu"); !strings.Contains(out, "pkg000/new.go") {
		t.Errorf("the new commit's file is not found: %s", out)
	}
}
