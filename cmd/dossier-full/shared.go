package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
)

// sharedIndex is `dossier index --store`: the workspace's commit served
// from a shared store, indexed here only when the store lacks it.
type sharedIndex struct {
	url, passwordEnv, repoID string
	model                    store.VectorModel
	out, errw                io.Writer
}

// storeSettings is the store a command uses: --store, else the config's
// [store] url (the workspace's only when trusted).
func storeSettings(flag string, cfg config.Config) (url, passwordEnv string) {
	if flag != "" {
		return flag, cfg.Store.PasswordEnv
	}
	return cfg.Store.URL, cfg.Store.PasswordEnv
}

// before runs ahead of the local index: when the store holds the
// workspace's commit and nothing differs from it, the workspace is linked
// to that snapshot and nothing is indexed (done). Otherwise the local
// index runs, and after publishes it.
func (s *sharedIndex) before(ctx context.Context, root string, opts index.Options) (key store.SnapshotKey, changed []string, done bool, err error) {
	if prefix, err := history.Git(ctx, root, "rev-parse", "--show-prefix"); err == nil && strings.TrimSpace(string(prefix)) != "" {
		return key, nil, false, fmt.Errorf("%w: %s is a folder of its repository (%s): a shared store keeps whole repositories, run `dossier index --store` at its top", errUsage, root, strings.TrimSpace(string(prefix)))
	}
	repo, err := history.RepoID(ctx, root, s.repoID)
	if err != nil {
		return key, nil, false, err
	}
	commit, changed, err := history.HeadCommit(ctx, root)
	if err != nil {
		return key, nil, false, err
	}
	key = store.SnapshotKey{Repo: repo, Commit: commit, Recipe: index.Recipe(s.model)}
	p, err := openPublisher(ctx, s.url, s.passwordEnv)
	if err != nil {
		return key, nil, false, err
	}
	defer p.Close()
	start := time.Now()
	id, err := p.Find(ctx, key)
	if err != nil {
		return key, nil, false, err
	}
	if id == 0 {
		return key, changed, false, nil
	}
	l := store.Link{URL: s.url, PasswordEnv: s.passwordEnv, SnapshotKey: key, Snapshot: id}
	if len(changed) > 0 {
		// The store answers for the commit; the local index for the
		// files that differ from it, and for nothing else: indexed
		// before the link names them.
		start := time.Now()
		if l.Overlay, err = index.SyncOverlay(ctx, opts, l); err != nil {
			return key, nil, false, err
		}
		if err := store.WriteLink(root, l); err != nil {
			return key, nil, false, err
		}
		fmt.Fprintf(s.out, "linked to %s in %s; %d changed files indexed here (%.1f s), the rest answered by the store\n",
			key, p.Describe(), len(l.Overlay), time.Since(start).Seconds())
		return key, nil, true, nil
	}
	if err := store.WriteLink(root, l); err != nil {
		return key, nil, false, err
	}
	fmt.Fprintf(s.out, "already indexed: %s is in %s (looked up in %d ms); nothing to index, search away\n",
		key, p.Describe(), time.Since(start).Milliseconds())
	return key, nil, true, nil
}

// after publishes the local index the run just finished, or, when files
// differ from the commit, links the workspace with them as its overlay if
// the store holds the commit, and says why nothing was published if not.
func (s *sharedIndex) after(ctx context.Context, root string, key store.SnapshotKey, changed []string) error {
	p, err := openPublisher(ctx, s.url, s.passwordEnv)
	if err != nil {
		return err
	}
	defer p.Close()
	if len(changed) > 0 {
		id, err := p.Find(ctx, key)
		if err != nil {
			return err
		}
		if id == 0 {
			_ = store.RemoveLink(root)
			fmt.Fprintf(s.errw, "dossier: not published to %s: %d files differ from commit %s (first: %s); indexed locally only. Publish from a clean checkout (CI) or commit first.\n",
				p.Describe(), len(changed), key.Commit[:min(12, len(key.Commit))], changed[0])
			return nil
		}
		l := store.Link{URL: s.url, PasswordEnv: s.passwordEnv, SnapshotKey: key, Snapshot: id, Overlay: changed}
		if err := store.WriteLink(root, l); err != nil {
			return err
		}
		fmt.Fprintf(s.out, "linked to %s in %s; %d changed files answered by the local index\n", key, p.Describe(), len(changed))
		return nil
	}
	start := time.Now()
	rep, err := index.Publish(ctx, root, p, key, nil)
	if err != nil {
		return err
	}
	id, err := p.Find(ctx, key)
	if err != nil {
		return err
	}
	if err := store.WriteLink(root, store.Link{URL: s.url, PasswordEnv: s.passwordEnv, SnapshotKey: key, Snapshot: id}); err != nil {
		return err
	}
	if rep.Done {
		fmt.Fprintf(s.out, "already in %s: %s (published meanwhile by another run)\n", p.Describe(), key)
		return nil
	}
	fmt.Fprintf(s.out, "published %s to %s: %d files, %d sent (%.1f MB), %.1f s\n", key, p.Describe(),
		rep.Files, rep.Sent, float64(rep.Bytes)/(1<<20), time.Since(start).Seconds())
	return nil
}
