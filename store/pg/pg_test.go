package pg

import (
	"context"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store/pg/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// openTest opens a fresh database of the shared test server.
func openTest(t *testing.T) *Store {
	t.Helper()
	return openURL(t, pgtest.Start(t), Options{})
}

func openURL(t *testing.T, url string, opts Options) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// dbName is the database of a pgtest URL (postgres:///NAME?...).
func dbName(url string) string {
	rest := strings.TrimPrefix(url, "postgres:///")
	name, _, _ := strings.Cut(rest, "?")
	return name
}

// exec runs sql on s, failing t on error.
func exec(t *testing.T, s *Store, sql string, args ...any) {
	t.Helper()
	if _, err := s.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// count returns the single integer sql selects.
func count(t *testing.T, s *Store, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}
