package discover

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// gitTimeout bounds the git ls-files a walk runs.
const gitTimeout = 10 * time.Second

// A default ignore is a guess from a name: a folder called bin/, build/ or
// dist/ usually holds build output. A file git tracks proves the guess
// wrong for that file (a project's bin/setup script, a tool in bin/), so
// the walk asks git, once per default-ignored folder, which files in it
// are tracked, walks the folder for those and skips the rest (untracked
// build output stays ignored). The file-name defaults (lock files,
// minified bundles, object files) are noise whether tracked or not and
// stay skipped. Without git, or outside a git work tree, the folder is
// skipped whole, as before.
//
// A file git starts tracking in a folder the last walk skipped whole is
// found by the next full walk (a commit, which moves HEAD, takes one).

// gitTracked is what git tracks in the workspace's default-ignored
// folders, read on first use: at most one git process per walk (none
// while git's index and HEAD are unchanged, see trackedCache), and none
// for a workspace without such a folder.
type gitTracked struct {
	loaded bool
	paths  map[string]bool // tracked files and every folder above one
}

// hides reports whether the pattern at index by of builtins(), which
// ignores rel (a workspace-relative slash path), is a default-ignored
// folder that git tracks rel in, or files under rel: then rel is walked
// all the same. The folder patterns match everything under the folder,
// so an untracked file there stays ignored.
func (g *gitTracked) hides(root, rel string, by int) bool {
	if by < 0 || by >= len(defaultIgnores) || !walksTracked(defaultIgnores[by]) {
		return false
	}
	return g.under(root, rel)
}

// walksTracked reports whether pattern is a default-ignored folder whose
// tracked files are walked: a build or vendor folder, not a version
// control system's own (.git/, .hg/, .svn/) nor dossier's (.dossier/,
// which a plain `git add -A` commits: its index, history and kept answers
// are never sources).
func walksTracked(pattern string) bool {
	switch pattern {
	case ".git/", ".hg/", ".svn/", ".dossier/":
		return false
	}
	return strings.HasSuffix(pattern, "/")
}

// under reports whether git tracks a file at or under rel, a
// workspace-relative slash path in a default-ignored folder, asking git
// on first use.
func (g *gitTracked) under(root, rel string) bool {
	if !g.loaded {
		g.loaded = true
		g.paths = map[string]bool{}
		for _, p := range cachedTrackedIgnored(root) {
			for q := p; q != ""; q = q[:max(strings.LastIndexByte(q, '/'), 0)] {
				g.paths[q] = true
			}
		}
	}
	return g.paths[rel]
}

// trackedCache keeps trackedIgnored's answer per root while git's index
// and HEAD are unchanged: Check runs for every path of a watcher's batch
// and every span evidence reads, and one git process each would be
// thousands after a build writes into a tracked bin/.
var trackedCache sync.Map // root -> trackedEntry

type trackedEntry struct {
	stamp string
	paths []string
}

// cachedTrackedIgnored is trackedIgnored, from trackedCache while root's
// .git/index and .git/HEAD have the size and modification time they had.
func cachedTrackedIgnored(root string) []string {
	var stamp strings.Builder
	for _, name := range []string{"index", "HEAD"} {
		if st, err := os.Stat(filepath.Join(root, ".git", name)); err == nil {
			fmt.Fprintf(&stamp, "%d:%d;", st.Size(), st.ModTime().UnixNano())
		} else {
			stamp.WriteString("-;")
		}
	}
	if e, ok := trackedCache.Load(root); ok && e.(trackedEntry).stamp == stamp.String() {
		return e.(trackedEntry).paths
	}
	paths := trackedIgnored(root)
	trackedCache.Store(root, trackedEntry{stamp: stamp.String(), paths: paths})
	return paths
}

// trackedIgnored lists the files git tracks in the folders of
// defaultIgnores, as workspace-relative slash paths; none when root is not
// in a git work tree or git is not on PATH.
func trackedIgnored(root string) []string {
	args := []string{"-C", root, "ls-files", "-z", "--cached", "--"}
	for _, p := range defaultIgnores {
		if !walksTracked(p) {
			continue
		}
		if name, ok := strings.CutSuffix(p, "/"); ok {
			if name, anchored := strings.CutPrefix(name, "/"); anchored {
				args = append(args, ":(glob)"+name+"/**")
			} else {
				args = append(args, ":(glob)**/"+name+"/**")
			}
		}
	}
	if !plainGitFiles(root) {
		return nil
	}
	// git would wait on a FIFO dossier's checks did not see (a parent's
	// .git, a global config): bounded, the walk goes on without it.
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var paths []string
	for p := range bytes.SplitSeq(out, []byte{0}) {
		if len(p) > 0 {
			paths = append(paths, string(p))
		}
	}
	return paths
}

// plainGitFiles reports whether the files git reads first in root's .git
// (when it is a directory) are regular files or absent: a FIFO or a
// device there would hold git, and the walk with it.
func plainGitFiles(root string) bool {
	for _, name := range []string{"HEAD", "config", "index"} {
		st, err := os.Lstat(filepath.Join(root, ".git", name))
		if err == nil && !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}
