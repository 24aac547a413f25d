package history

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/store"
)

// A shared store names a workspace by its repository and commit (see
// store.SnapshotKey): what git says the clone is and how its working tree
// differs from the commit.

// RepoID is the repository's identity in a shared store: its remote
// "origin" normalised (host lower-cased, no scheme, user, port or ".git":
// git@github.com:Org/x.git and https://github.com/Org/x are both
// "github.com/Org/x"), so that every clone is the same repository.
// override, when set, wins (--repo-id).
func RepoID(ctx context.Context, root, override string) (string, error) {
	if override != "" {
		return override, nil
	}
	out, err := Git(ctx, root, "remote", "get-url", "origin")
	if err != nil {
		return "", fmt.Errorf("%s has no remote \"origin\" to name it in a shared store (%v): name it with --repo-id NAME", root, err)
	}
	id := NormalizeRemote(strings.TrimSpace(string(out)))
	if id == "" {
		return "", fmt.Errorf("the remote %q of %s does not name a repository: name it with --repo-id NAME", strings.TrimSpace(string(out)), root)
	}
	return id, nil
}

var scpLike = regexp.MustCompile(`^(?:[^@/]+@)?([^:/]+):(.+)$`)

// NormalizeRemote is a remote URL as RepoID keeps it ("" when it names no
// repository).
func NormalizeRemote(remote string) string {
	var host, path string
	if u, err := url.Parse(remote); err == nil && u.Scheme != "" && u.Host != "" {
		host, path = u.Hostname(), u.Path
	} else if m := scpLike.FindStringSubmatch(remote); m != nil && !strings.Contains(remote, "://") {
		host, path = m[1], m[2]
	} else if u != nil && u.Scheme == "file" || strings.HasPrefix(remote, "/") {
		host, path = "", strings.TrimPrefix(remote, "file://")
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if path == "" {
		return ""
	}
	if host == "" {
		return path
	}
	return strings.ToLower(host) + "/" + path
}

// HeadCommit is the commit HEAD names, and the paths of the working tree
// that differ from it (modified, added, deleted or untracked, ignored files
// left out): what a snapshot of that commit would get wrong.
func HeadCommit(ctx context.Context, root string) (commit string, changed []string, err error) {
	out, err := Git(ctx, root, "rev-parse", "--verify", "HEAD")
	if err != nil {
		return "", nil, fmt.Errorf("%s has no commit to index for a shared store (%v): commit first", root, err)
	}
	commit = strings.TrimSpace(string(out))
	st, err := Git(ctx, root, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return "", nil, err
	}
	for _, e := range strings.Split(string(st), "\x00") {
		// dossier's own directory is the clone's, whether ignored or not.
		if len(e) > 3 && !strings.HasPrefix(e[3:], store.DirName+"/") {
			changed = append(changed, e[3:])
		}
	}
	slices.Sort(changed)
	return commit, changed, nil
}

// OverlayPaths lists the files of root's working tree that differ from
// commit (tracked files changed, added or deleted since, untracked files
// not ignored), sorted, without dossier's own directory.
func OverlayPaths(ctx context.Context, root, commit string) ([]string, error) {
	var out []string
	for _, args := range [][]string{
		{"diff", "--name-only", "-z", "--no-renames", commit},
		{"ls-files", "--others", "--exclude-standard", "-z"},
	} {
		raw, err := Git(ctx, root, args...)
		if err != nil {
			return nil, fmt.Errorf("the files of %s that differ from its shared snapshot's commit %.12s: %w", root, commit, err)
		}
		for _, p := range strings.Split(string(raw), "\x00") {
			if p != "" && !strings.HasPrefix(p, store.DirName+"/") {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
