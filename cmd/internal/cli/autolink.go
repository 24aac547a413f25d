package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
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

// OverlaySync indexes the overlay of a workspace just linked. The
// front-ends that index set it (dossier-full, the workbench); nil in the
// one-shot front.
var OverlaySync func(ctx context.Context, root string, cfg config.Config) error

// LinkTimeout bounds the lookup of a fresh clone's commit in its store.
var LinkTimeout = 20 * time.Second

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
		return fmt.Sprintf("dossier: the shared store of [store] url is out of reach (%v); this clone is not linked to it", err), nil
	}
	l := store.Link{URL: url, PasswordEnv: passwordEnv, SnapshotKey: key, Snapshot: int64(r.Generation()), Overlay: changed}
	where := r.Describe()
	r.Close()
	if len(changed) > 0 && OverlaySync == nil {
		return fmt.Sprintf("dossier: %s holds this commit, and %d files here differ from it: run `dossier index` to read it with them", where, len(changed)), nil
	}
	if err := store.WriteLink(root, l); err != nil {
		return "", err
	}
	if len(changed) > 0 {
		if err := OverlaySync(ctx, root, cfg); err != nil {
			_ = store.RemoveLink(root)
			return "", fmt.Errorf("index the %d files that differ from %s: %w", len(changed), key, err)
		}
	}
	return fmt.Sprintf("dossier: reading the shared store's snapshot of this commit, %s; %d changed files indexed here", where, len(changed)), nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
