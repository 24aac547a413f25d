package pg

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dossierhq/dossier/store"
)

// Status is what `dossier store status` shows.
type Status struct {
	Server        string // Describe()
	ServerVersion string // SHOW server_version
	PGVector      string // the vector extension's version, or why there is none
	SchemaVersion int    // newest applied migration, 0 for a store never written
	KnownVersion  int    // newest migration this dossier knows
	Pending       []string
	Size          int64 // bytes of the dossier tables and their indexes
	Repos         []RepoStatus
}

// RepoStatus is one repository of the store, its snapshots newest first.
type RepoStatus struct {
	Name      string
	Snapshots []SnapshotStatus
}

// SnapshotStatus is one snapshot.
type SnapshotStatus struct {
	ID                    int64
	Commit, Recipe, Model string
	State                 string // building or ready
	Files                 int
	Created               time.Time
	Finished              *time.Time // nil while building
	Refs                  []string
}

// Status reports the server, the schema and every repository's
// snapshots. A store with a newer schema gets its server facts and the
// NewerSchemaError.
func (s *Store) Status(ctx context.Context) (Status, error) {
	st := Status{Server: s.server, KnownVersion: newest(s.migrations)}
	err := s.withTimeout(ctx, func(ctx context.Context) error { return s.status(ctx, &st) })
	if err != nil {
		return st, s.wrap("status", err)
	}
	if st.SchemaVersion > st.KnownVersion {
		return st, &NewerSchemaError{Server: s.server, Version: st.SchemaVersion, Known: st.KnownVersion}
	}
	return st, nil
}

func (s *Store) status(ctx context.Context, st *Status) error {
	err := s.pool.QueryRow(ctx, `SELECT current_setting('server_version'),
		coalesce((SELECT extversion FROM pg_extension WHERE extname = 'vector'), ''),
		(SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c
			WHERE c.relkind = 'r' AND c.relname LIKE 'dossier\_%' AND c.relnamespace = current_schema()::regnamespace)`).
		Scan(&st.ServerVersion, &st.PGVector, &st.Size)
	if err != nil {
		return err
	}
	if st.PGVector == "" {
		st.PGVector = "not installed"
		if ok, err := available(ctx, s.pool, "vector"); err != nil {
			return err
		} else if ok {
			st.PGVector = "available, not enabled: run `dossier store migrate`"
		}
	}
	done, top, err := applied(ctx, s.pool)
	if err != nil {
		return err
	}
	st.SchemaVersion = top
	for _, m := range s.migrations {
		if done[m.version] {
			continue
		}
		ok := true
		if m.extension != "" {
			if ok, err = available(ctx, s.pool, m.extension); err != nil {
				return err
			}
		}
		if ok {
			st.Pending = append(st.Pending, m.name+" (run `dossier store migrate`)")
		} else {
			st.Pending = append(st.Pending, fmt.Sprintf("%s (the server lacks the %s extension)", m.name, m.extension))
		}
	}
	if !done[1] || top > st.KnownVersion {
		return nil
	}
	rows, _ := s.pool.Query(ctx, `SELECT r.name, s.id, s.commit, s.recipe, s.model, s.state, s.created, s.finished,
		(SELECT count(*) FROM dossier_snapshot_files f WHERE f.snapshot_id = s.id),
		coalesce((SELECT array_agg(name ORDER BY name) FROM dossier_refs x WHERE x.snapshot_id = s.id), '{}')
		FROM dossier_snapshots s JOIN dossier_repos r ON r.id = s.repo_id
		ORDER BY r.name, s.created DESC, s.id DESC`)
	var name string
	var sn SnapshotStatus
	_, err = pgx.ForEachRow(rows, []any{&name, &sn.ID, &sn.Commit, &sn.Recipe, &sn.Model, &sn.State, &sn.Created, &sn.Finished, &sn.Files, &sn.Refs}, func() error {
		if len(st.Repos) == 0 || st.Repos[len(st.Repos)-1].Name != name {
			st.Repos = append(st.Repos, RepoStatus{Name: name})
		}
		last := &st.Repos[len(st.Repos)-1]
		last.Snapshots = append(last.Snapshots, sn)
		return nil
	})
	return err
}

// GCOptions say which snapshots gc keeps.
type GCOptions struct {
	// KeepLatest keeps the newest KeepLatest ready snapshots of every
	// repository (what `search --repo` and fresh clones use).
	KeepLatest int
	// Grace keeps building snapshots, and records no snapshot holds,
	// younger than Grace: an interrupted upload resumes within it.
	Grace time.Duration
}

// DefaultGC keeps what refs point at, the newest ready snapshot of each
// repository, and a day of interrupted uploads.
var DefaultGC = GCOptions{KeepLatest: 1, Grace: 24 * time.Hour}

// GCReport says what gc dropped.
type GCReport struct {
	Snapshots int
	Records   int
	// Bytes is the size of the dropped records' values and symbols; the
	// server reuses the space after (auto)vacuum.
	Bytes int64
}

// GC drops the snapshots opts does not keep and no ref points at, then
// the records no snapshot holds. It runs alone: while an upload runs
// (they hold gc's lock shared) it refuses rather than drop the records of
// a snapshot being built.
func (s *Store) GC(ctx context.Context, opts GCOptions) (GCReport, error) {
	var rep GCReport
	if err := s.checkReadable(ctx); err != nil {
		return rep, err
	}
	err := s.withTimeout(ctx, func(ctx context.Context) error {
		conn, err := s.pool.Acquire(ctx)
		if err != nil {
			return err
		}
		defer conn.Release()
		var locked bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", gcLock).Scan(&locked); err != nil {
			return err
		}
		if !locked {
			return errUploading
		}
		defer func() {
			if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", gcLock); err != nil {
				conn.Conn().Close(context.WithoutCancel(ctx))
			}
		}()
		return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error { return gc(ctx, tx, opts, &rep) })
	})
	if errors.Is(err, errUploading) {
		return rep, fmt.Errorf("shared store %s: %w", s.server, err)
	}
	return rep, s.wrap("gc", err)
}

var errUploading = errors.New("an upload is in progress: run gc again when it has finished")

func gc(ctx context.Context, tx pgx.Tx, opts GCOptions, rep *GCReport) error {
	grace := fmt.Sprintf("%d microseconds", opts.Grace.Microseconds())
	tag, err := tx.Exec(ctx, `DELETE FROM dossier_snapshots s
		WHERE NOT EXISTS (SELECT 1 FROM dossier_refs x WHERE x.snapshot_id = s.id)
		AND ((s.state = 'building' AND s.created < now() - $2::interval)
		  OR (s.state = 'ready' AND s.id NOT IN (SELECT id FROM (SELECT id,
		        row_number() OVER (PARTITION BY repo_id ORDER BY finished DESC, id DESC) AS n
		      FROM dossier_snapshots WHERE state = 'ready') newest WHERE n <= $1)))`, opts.KeepLatest, grace)
	if err != nil {
		return err
	}
	rep.Snapshots = int(tag.RowsAffected())
	const dead = `SELECT id FROM dossier_records r WHERE r.created < now() - $1::interval
		AND NOT EXISTS (SELECT 1 FROM dossier_snapshot_files f WHERE f.record_id = r.id)`
	err = tx.QueryRow(ctx, `SELECT
		coalesce((SELECT sum(octet_length(value)) FROM dossier_record_values WHERE record_id IN (`+dead+`)), 0) +
		coalesce((SELECT sum(octet_length(key) + octet_length(value)) FROM dossier_symbols WHERE record_id IN (`+dead+`)), 0)`,
		grace).Scan(&rep.Bytes)
	if err != nil {
		return err
	}
	tag, err = tx.Exec(ctx, "DELETE FROM dossier_records WHERE id IN ("+dead+")", grace)
	rep.Records = int(tag.RowsAffected())
	return err
}

// Repos lists the repositories holding a ready snapshot, by name.
func (s *Store) Repos(ctx context.Context) ([]string, error) {
	if err := s.checkReadable(ctx); err != nil {
		return nil, err
	}
	var names []string
	err := s.withTimeout(ctx, func(ctx context.Context) error {
		rows, _ := s.pool.Query(ctx, `SELECT name FROM dossier_repos r
			WHERE EXISTS (SELECT 1 FROM dossier_snapshots s WHERE s.repo_id = r.id AND s.state = 'ready') ORDER BY name`)
		var err error
		names, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return names, s.wrap("list repositories", err)
}

// Latest returns a link to the newest ready snapshot of repo (of recipe,
// or of a recipe that extends it with "+model", unless recipe is ""):
// what `search --repo NAME` reads. It wraps
// store.ErrNotFound when there is none.
func (s *Store) Latest(ctx context.Context, repo, recipe string) (store.Link, error) {
	if err := s.checkReadable(ctx); err != nil {
		return store.Link{}, err
	}
	l := store.Link{URL: s.url, PasswordEnv: s.opts.PasswordEnv}
	err := s.withTimeout(ctx, func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, `SELECT s.id, r.name, s.commit, s.recipe FROM dossier_snapshots s
			JOIN dossier_repos r ON r.id = s.repo_id
			WHERE r.name = $1 AND s.state = 'ready' AND ($2 = '' OR s.recipe = $2 OR starts_with(s.recipe, $2 || '+'))
			ORDER BY s.finished DESC, s.id DESC LIMIT 1`, repo, recipe).Scan(&l.Snapshot, &l.Repo, &l.Commit, &l.Recipe)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		names, _ := s.Repos(ctx)
		if slices.Contains(names, repo) {
			return l, fmt.Errorf("shared store %s holds no snapshot of %q that this dossier reads (recipe %s): publish it again with this dossier (`dossier index --store`): %w", s.server, repo, recipe, store.ErrNotFound)
		}
		return l, fmt.Errorf("shared store %s holds no snapshot of %q (it holds: %s): %w", s.server, repo, strings.Join(names, ", "), store.ErrNotFound)
	}
	return l, s.wrap("find the latest snapshot of "+repo, err)
}

// SetRef points ref name of repo at snapshot (a ready one of repo's);
// gc keeps the snapshots refs point at.
func (s *Store) SetRef(ctx context.Context, repo, name string, snapshot int64) error {
	if err := s.ensureMigrated(ctx); err != nil {
		return err
	}
	var n int64
	err := s.withTimeout(ctx, func(ctx context.Context) error {
		tag, err := s.pool.Exec(ctx, `INSERT INTO dossier_refs (repo_id, name, snapshot_id)
			SELECT s.repo_id, $2, s.id FROM dossier_snapshots s JOIN dossier_repos r ON r.id = s.repo_id
			WHERE r.name = $1 AND s.id = $3 AND s.state = 'ready'
			ON CONFLICT (repo_id, name) DO UPDATE SET snapshot_id = EXCLUDED.snapshot_id`, repo, name, snapshot)
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return s.wrap("set ref "+name, err)
	}
	if n == 0 {
		return fmt.Errorf("shared store %s: snapshot %d is not a ready snapshot of %s", s.server, snapshot, repo)
	}
	return nil
}

// Find looks snapshot key up without writing anything (no migration, no
// lock): id 0 when the store does not hold it ready. What `index --store`
// asks first, with any role that may read.
func (s *Store) Find(ctx context.Context, key store.SnapshotKey) (int64, error) {
	var id int64
	err := s.withTimeout(ctx, func(ctx context.Context) error {
		return s.pool.QueryRow(ctx, `SELECT s.id FROM dossier_snapshots s JOIN dossier_repos r ON r.id = s.repo_id
			WHERE r.name = $1 AND s.commit = $2 AND s.recipe = $3 AND s.state = 'ready'`, key.Repo, key.Commit, key.Recipe).Scan(&id)
	})
	pe := (*pgconn.PgError)(nil)
	switch {
	case errors.Is(err, pgx.ErrNoRows), errors.As(err, &pe) && pe.Code == "42P01":
		return 0, nil
	case err != nil:
		return 0, s.wrap("look up "+key.String(), err)
	}
	return id, nil
}
