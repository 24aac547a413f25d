package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
)

// A workspace whose config names a shared store ([store] url, trusted),
// and which has neither an index nor a link yet (a fresh clone), is
// linked to the store's snapshot of its commit by the first command that
// loads its config, so every reader reads the store at once and nothing
// is indexed: what `dossier index --store` does when the store holds the
// commit. Files that differ from the commit are the overlay, indexed
// here by the front-ends that can index (OverlaySync); the one-shot
// front asks for `dossier index` instead. A store that lacks the commit
// leaves the workspace as it was: the command then asks for an index.

// OverlaySync indexes the overlay of l, a link of root not written yet,
// and returns it (see index.SyncOverlay). The front-ends that index set
// it (dossier-full, the workbench); nil in the one-shot front.
var OverlaySync func(ctx context.Context, root string, cfg config.Config, l store.Link) ([]string, error)

// LinkTimeout bounds the lookup of a fresh clone's commit in its store.
var LinkTimeout = 20 * time.Second

// RetryUnreachable is how long a store found out of reach is not tried
// again by the commands of a workspace.
var RetryUnreachable = 2 * time.Minute

// LinkFromStore links root to the snapshot of its commit in the store at
// url (see above) when root has neither an index nor a link, and returns
// the notice that says so (or why not, for a tree the one-shot front
// cannot link). It does nothing when url is empty, the workspace is not
// the top of a git repository with a remote and a commit, or the store
// lacks the commit.
func LinkFromStore(root, url, passwordEnv string, cfg config.Config) (notice string, err error) {
	if url == "" || exists(store.Path(root)) || exists(store.LinkPath(root)) {
		return "", nil
	}
	// A store out of reach is tried again after a while, not at every
	// command (each would wait out the connect timeout).
	stamp := filepath.Join(store.Dir(root), "shared-unreachable")
	if st, err := os.Stat(stamp); err == nil && time.Since(st.ModTime()) < RetryUnreachable {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), LinkTimeout)
	defer cancel()
	if prefix, err := history.Git(ctx, root, "rev-parse", "--show-prefix"); err != nil || strings.TrimSpace(string(prefix)) != "" {
		return "", nil // not a repository, or a folder of one: a store keeps whole repositories
	}
	repo, err := history.RepoID(ctx, root, "")
	if err != nil {
		return "", nil
	}
	commit, changed, err := history.HeadCommit(ctx, root)
	if err != nil {
		return "", nil
	}
	key := store.SnapshotKey{Repo: repo, Commit: commit, Recipe: store.ModelRecipe(secrets.Ruleset(), search.ModelOf(cfg.Embed))}
	r, err := store.OpenRemote(ctx, store.Link{URL: url, PasswordEnv: passwordEnv, SnapshotKey: key})
	if errors.Is(err, store.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		// The command goes on as without a store (an index of its own,
		// if it has one to build); the notice says why.
		if os.MkdirAll(store.Dir(root), 0o700) == nil {
			_ = os.WriteFile(stamp, []byte(err.Error()+"\n"), 0o600)
		}
		return fmt.Sprintf("dossier: the shared store is out of reach (%v); this clone is not linked to it (tried again in %v)", err, RetryUnreachable), nil
	}
	l := store.Link{URL: url, PasswordEnv: passwordEnv, SnapshotKey: key, Snapshot: int64(r.Generation()), Overlay: changed}
	where := r.Describe()
	r.Close()
	if len(changed) > 0 && OverlaySync == nil {
		return fmt.Sprintf("dossier: %s holds this commit, and %d files here differ from it: run `dossier index` to read it with them", where, len(changed)), nil
	}
	if len(changed) > 0 {
		// Indexed before the link names them.
		if l.Overlay, err = OverlaySync(ctx, root, cfg, l); err != nil {
			return "", fmt.Errorf("index the %d files that differ from %s: %w", len(changed), key, err)
		}
	}
	if err := store.WriteLink(root, l); err != nil {
		return "", err
	}
	return fmt.Sprintf("dossier: reading the shared store's snapshot of this commit, %s; %d changed files indexed here", where, len(changed)), nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
