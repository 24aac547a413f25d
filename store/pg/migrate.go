package pg

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/dossierhq/dossier/store"
)

// Migrations are the files migrations/NNNN_name.sql, applied in order of
// NNNN, each in one transaction, recorded in dossier_schema_migrations.
// A file whose first line is "-- requires extension: NAME" is left
// pending, not failed, while the server lacks that extension
// (pg_available_extensions): a server without pgvector gets everything
// but the vector tables, and `dossier store migrate` adds them once the
// extension is installed.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

type migration struct {
	version   int
	name      string // file name without .sql
	sql       string
	extension string // required extension, "" for none
}

const requiresPrefix = "-- requires extension:"

// migrationLock is the advisory lock key migrators take (any constant
// that no other lock of the store uses).
const migrationLock int64 = 0x646f7373_6d696772 // "dossmigr"

var knownMigrations = mustMigrations(migrationFiles)

func mustMigrations(fsys fs.FS) []migration {
	ms, err := loadMigrations(fsys)
	if err != nil {
		panic(err) // the embedded files are part of the binary: a test catches this
	}
	return ms
}

func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	seen := map[int]string{}
	for _, n := range names {
		base := strings.TrimSuffix(path.Base(n), ".sql")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNNN_name.sql", n)
		}
		if prev, dup := seen[v]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", prev, n, v)
		}
		seen[v] = n
		raw, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		m := migration{version: v, name: base, sql: string(raw)}
		first, _, _ := strings.Cut(m.sql, "\n")
		if ext, ok := strings.CutPrefix(strings.TrimSpace(first), requiresPrefix); ok {
			m.extension = strings.TrimSpace(ext)
		}
		ms = append(ms, m)
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	return ms, nil
}

// KnownVersion is the newest schema version this dossier knows.
func KnownVersion() int { return newest(knownMigrations) }

func newest(ms []migration) int {
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].version
}

// NewerSchemaError is returned by a store whose schema is newer than this
// dossier knows; it wraps store.ErrNewerSchema.
type NewerSchemaError struct {
	Server         string
	Version, Known int
}

func (e *NewerSchemaError) Error() string {
	return fmt.Sprintf("store %s has schema version %d; this dossier knows up to %d: upgrade dossier", e.Server, e.Version, e.Known)
}

func (e *NewerSchemaError) Unwrap() error { return store.ErrNewerSchema }

// MigrateReport says what Migrate did.
type MigrateReport struct {
	Version int      // the newest applied migration
	Applied []string // applied by this call
	Pending []string // left pending, with the reason
}

// querier is what reading the schema state needs: a pool, conn or tx.
type querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// applied returns the versions recorded in dossier_schema_migrations
// (none when the table does not exist yet).
func applied(ctx context.Context, q querier) (map[int]bool, int, error) {
	var exists bool
	if err := q.QueryRow(ctx, "SELECT to_regclass('dossier_schema_migrations') IS NOT NULL").Scan(&exists); err != nil || !exists {
		return nil, 0, err
	}
	rows, err := q.Query(ctx, "SELECT version FROM dossier_schema_migrations")
	if err != nil {
		return nil, 0, err
	}
	vs, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	done := map[int]bool{}
	top := 0
	for _, v := range vs {
		done[int(v)] = true
		top = max(top, int(v))
	}
	return done, top, err
}

// available tells whether the server can create extension ext.
func available(ctx context.Context, q querier, ext string) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = $1)", ext).Scan(&ok)
	return ok, err
}

// Migrate brings the store's schema up to this dossier's, under an
// advisory lock so that concurrent migrators apply each file once.
func (s *Store) Migrate(ctx context.Context) (MigrateReport, error) {
	var rep MigrateReport
	err := s.withTimeout(ctx, func(ctx context.Context) error {
		conn, err := s.pool.Acquire(ctx)
		if err != nil {
			return err
		}
		defer conn.Release()
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
			return err
		}
		defer func() {
			if _, err := conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrationLock); err != nil {
				conn.Conn().Close(context.WithoutCancel(ctx)) // ending the session releases the lock
			}
		}()
		rep, err = s.migrateLocked(ctx, conn.Conn())
		return err
	})
	if _, newer := err.(*NewerSchemaError); newer {
		return rep, err
	}
	return rep, s.wrap("migrate", err)
}

func (s *Store) migrateLocked(ctx context.Context, conn *pgx.Conn) (MigrateReport, error) {
	var rep MigrateReport
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS dossier_schema_migrations
		(version int PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())`); err != nil {
		return rep, err
	}
	done, top, err := applied(ctx, conn)
	if err != nil {
		return rep, err
	}
	if top > newest(s.migrations) {
		return rep, &NewerSchemaError{Server: s.server, Version: top, Known: newest(s.migrations)}
	}
	for _, m := range s.migrations {
		if done[m.version] {
			continue
		}
		if m.extension != "" {
			ok, err := available(ctx, conn, m.extension)
			if err != nil {
				return rep, err
			}
			if !ok {
				rep.Pending = append(rep.Pending, fmt.Sprintf("%s (the server lacks the %s extension)", m.name, m.extension))
				continue
			}
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
			_, err := tx.Exec(ctx, "INSERT INTO dossier_schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return rep, err
		}
		rep.Applied = append(rep.Applied, m.name)
		top = max(top, m.version)
	}
	rep.Version = top
	return rep, nil
}

// ensureMigrated migrates once per Store, for writers.
func (s *Store) ensureMigrated(ctx context.Context) error {
	s.migMu.Lock()
	defer s.migMu.Unlock()
	if s.migrated {
		return nil
	}
	if _, err := s.Migrate(ctx); err != nil {
		return err
	}
	s.migrated = true
	return nil
}

// checkReadable refuses a store with no dossier schema or a newer one.
func (s *Store) checkReadable(ctx context.Context) error {
	var top int
	var done map[int]bool
	err := s.withTimeout(ctx, func(ctx context.Context) (err error) {
		done, top, err = applied(ctx, s.pool)
		return err
	})
	if err != nil {
		return s.wrap("read schema version", err)
	}
	if done == nil || !done[1] {
		return fmt.Errorf("shared store %s holds no dossier index: run `dossier index --store URL` (or `dossier store migrate`) first", s.server)
	}
	if top > newest(s.migrations) {
		return &NewerSchemaError{Server: s.server, Version: top, Known: newest(s.migrations)}
	}
	return nil
}
