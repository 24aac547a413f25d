package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/dossierhq/dossier/store"
)

func TestMigrateFreshAndIdempotent(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	if err := s.checkReadable(ctx); err == nil || !strings.Contains(err.Error(), "holds no dossier index") {
		t.Fatalf("an empty database read as a store: %v", err)
	}
	rep, err := s.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Applied) == 0 || rep.Applied[0] != "0001_core" {
		t.Fatalf("applied %v, want 0001_core first", rep.Applied)
	}
	if n := count(t, s, "SELECT count(*) FROM dossier_records"); n != 0 {
		t.Fatalf("%d records in a fresh store", n)
	}
	again, err := s.Migrate(ctx)
	if err != nil || len(again.Applied) != 0 || again.Version != rep.Version {
		t.Fatalf("second migrate applied %v (version %d, was %d), err %v", again.Applied, again.Version, rep.Version, err)
	}
	if err := s.checkReadable(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestMigrateConcurrent: migrators racing on a fresh store apply each
// file once (the advisory lock), and none fails.
func TestMigrateConcurrent(t *testing.T) {
	url := openTest(t).URL()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	applied := make(chan int, 4)
	for range 4 {
		s := openURL(t, url, Options{})
		wg.Go(func() {
			rep, err := s.Migrate(context.Background())
			errs <- err
			applied <- len(rep.Applied)
		})
	}
	wg.Wait()
	close(errs)
	close(applied)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for n := range applied {
		total += n
	}
	s := openURL(t, url, Options{})
	if rows := count(t, s, "SELECT count(*) FROM dossier_schema_migrations"); total != rows || rows == 0 {
		t.Fatalf("migrators applied %d files in all, the table records %d", total, rows)
	}
}

// TestNewerSchemaRefused: a store migrated by a newer dossier is refused
// by readers, writers and migrators, with the versions.
func TestNewerSchemaRefused(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	exec(t, s, "INSERT INTO dossier_schema_migrations (version, name) VALUES (9999, '9999_future')")
	want := fmt.Sprintf("store %s has schema version 9999; this dossier knows up to %d: upgrade dossier", s.Describe(), KnownVersion())
	fresh := openURL(t, s.URL(), Options{})
	_, _, beginErr := fresh.Begin(ctx, store.SnapshotKey{Repo: "r", Commit: "c", Recipe: "x"}, "")
	_, migErr := s.Migrate(ctx)
	for name, err := range map[string]error{"read": s.checkReadable(ctx), "migrate": migErr, "write": beginErr} {
		if err == nil || err.Error() != want || !errors.Is(err, store.ErrNewerSchema) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
}

// TestMigrationNeedsExtension: a migration needing an extension the server
// lacks stays pending, later ones still apply, and it applies once the
// extension is there (pg_trgm stands in for a present one).
func TestMigrationNeedsExtension(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	files := fstest.MapFS{
		"migrations/0001_a.sql": {Data: []byte("CREATE TABLE dossier_a (i int);")},
		"migrations/0002_b.sql": {Data: []byte("-- requires extension: no_such_extension\nCREATE TABLE dossier_b (i int);")},
		"migrations/0003_c.sql": {Data: []byte("-- requires extension: pg_trgm\nCREATE EXTENSION IF NOT EXISTS pg_trgm; CREATE TABLE dossier_c (i int);")},
	}
	ms, err := loadMigrations(files)
	if err != nil {
		t.Fatal(err)
	}
	s.migrations = ms
	rep, err := s.Migrate(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Applied, ",") != "0001_a,0003_c" || len(rep.Pending) != 1 || !strings.Contains(rep.Pending[0], "0002_b") || rep.Version != 3 {
		t.Fatalf("report %+v: want 0001 and 0003 applied, 0002 pending", rep)
	}
	files["migrations/0002_b.sql"].Data = []byte("-- requires extension: pg_trgm\nCREATE TABLE dossier_b (i int);")
	if s.migrations, err = loadMigrations(files); err != nil {
		t.Fatal(err)
	}
	rep, err = s.Migrate(ctx)
	if err != nil || strings.Join(rep.Applied, ",") != "0002_b" || len(rep.Pending) != 0 {
		t.Fatalf("once available: %+v, %v", rep, err)
	}
	if n := count(t, s, "SELECT count(*) FROM dossier_b"); n != 0 {
		t.Fatal(n)
	}
}

func TestLoadMigrationsRejectsBadNames(t *testing.T) {
	for name, fs := range map[string]fstest.MapFS{
		"no number": {"migrations/core.sql": {}},
		"duplicate": {"migrations/0001_a.sql": {}, "migrations/0001_b.sql": {}},
	} {
		if _, err := loadMigrations(fs); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
	if len(knownMigrations) == 0 || knownMigrations[0].name != "0001_core" {
		t.Fatalf("embedded migrations: %+v", knownMigrations)
	}
}
