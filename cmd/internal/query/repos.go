package query

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
	"github.com/dossierhq/dossier/store/pg"
)

// searchRepos answers q from other repositories of the shared store
// (search --repo NAME, --all-repos), from any directory: each from its
// newest snapshot of this dossier's layout, read as a workspace with no
// files of its own (see repoRoot). Scores are absolute (relevance.go), so
// the repositories' results merge by score.
func (o *Search) searchRepos(ctx context.Context, root string, cfg config.Config, q search.Query) (search.Response, error) {
	resp := search.Response{Query: q.Text, Results: []search.Result{}, MinScore: q.MinScore}
	url, pwEnv := o.store, cfg.Store.PasswordEnv
	if url == "" {
		url = cfg.Store.URL
	}
	if url == "" {
		if l, ok, err := store.ReadLink(root); err != nil {
			return resp, err
		} else if ok {
			url, pwEnv = l.URL, l.PasswordEnv
		}
	}
	if url == "" {
		return resp, fmt.Errorf("%w: --repo and --all-repos search a shared store: give --store postgres://host/db or set [store] url", cli.ErrUsage)
	}
	s, err := pg.Open(ctx, url, pg.Options{PasswordEnv: pwEnv})
	if err != nil {
		return resp, err
	}
	defer s.Close()
	names := []string{o.repo}
	if o.allRepos {
		if names, err = s.Repos(ctx); err != nil {
			return resp, err
		}
		if len(names) == 0 {
			return resp, fmt.Errorf("shared store %s holds no repository yet: publish one with `dossier index --store`", s.Describe())
		}
	}
	layout := store.Recipe(secrets.Ruleset())
	for _, name := range names {
		l, err := s.Latest(ctx, name, layout)
		if err != nil {
			return resp, err
		}
		dir, err := repoRoot(l)
		if err != nil {
			return resp, err
		}
		e := search.NewEngine()
		e.AllowEndpoint(cfg.Embed)
		e.OneShot()
		r, err := e.SearchRoot(ctx, dir, q)
		if err != nil {
			return resp, fmt.Errorf("%s: %w", name, err)
		}
		for i := range r.Results {
			r.Results[i].Repo = name
		}
		resp.Results = append(resp.Results, r.Results...)
		resp.Debug.TotalCandidates += r.Debug.TotalCandidates
		resp.Debug.Strategy = r.Debug.Strategy
		resp.Debug.LatencyMS += r.Debug.LatencyMS
		for _, n := range r.Debug.Notes {
			if !slices.Contains(resp.Debug.Notes, n) {
				resp.Debug.Notes = append(resp.Debug.Notes, n)
			}
		}
		for _, w := range r.Debug.Warnings {
			if !slices.Contains(resp.Debug.Warnings, w) {
				resp.Debug.Warnings = append(resp.Debug.Warnings, w)
			}
		}
	}
	slices.SortStableFunc(resp.Results, func(a, b search.Result) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
	if len(resp.Results) > q.K {
		resp.Results = resp.Results[:q.K]
	}
	return resp, nil
}

// repoRoot is a directory that reads snapshot l as a workspace with no
// files: a link and nothing else, under the user's cache directory.
func repoRoot(l store.Link) (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for a shared repository's link (%v): set XDG_CACHE_HOME", err)
	}
	h := sha256.Sum256([]byte(l.URL + "\x00" + l.Repo))
	dir := filepath.Join(base, "dossier", "repos", hex.EncodeToString(h[:8]))
	if cur, ok, err := store.ReadLink(dir); err == nil && ok && cur.SnapshotKey == l.SnapshotKey && cur.URL == l.URL {
		return dir, nil
	}
	return dir, store.WriteLink(dir, l)
}
