package index_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/pg"
	"github.com/dossierhq/dossier/store/pg/pgtest"
)

// TestPostgresSnapshotAnswersAsTheLocalIndex is the conformance test on a
// real PostgreSQL server (Debian's, started by pgtest): a clone linked to
// the published snapshot answers every query as the local index does.
// The server has no pgvector: hybrid queries are answered without
// vectors, and say so.
func TestPostgresSnapshotAnswersAsTheLocalIndex(t *testing.T) {
	url, s := openPG(t)
	ctx := context.Background()
	root := sharedRepo(t)
	clone := publishAndClone(t, root, s, url)
	sameTextAnswers(t, root, clone)
	l, _, err := store.ReadLink(clone)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Repos) != 1 || st.Repos[0].Name != l.Repo || len(st.Repos[0].Snapshots) != 1 || st.Repos[0].Snapshots[0].State != "ready" {
		t.Fatalf("status: %+v", st.Repos)
	}
}

// TestPostgresStoreHoldsNoSecret publishes the fixture with its secrets
// and reads back every table of the store: no secret, nor the first
// characters of one, is on the server.
func TestPostgresStoreHoldsNoSecret(t *testing.T) {
	url, s := openPG(t)
	ctx := context.Background()
	publishAndClone(t, sharedRepo(t), s, url)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name, column_name, data_type FROM information_schema.columns
		WHERE table_name LIKE 'dossier%' AND data_type IN ('bytea', 'text')`)
	if err != nil {
		t.Fatal(err)
	}
	var cols [][3]string
	for rows.Next() {
		var c [3]string
		if err := rows.Scan(&c[0], &c[1], &c[2]); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if len(cols) < 8 {
		t.Fatalf("only %d columns: %v", len(cols), cols)
	}
	n := 0
	check := secretChecker(t)
	for _, c := range cols {
		bucket := "''"
		if c[0] == "dossier_record_values" {
			bucket = "bucket"
		}
		rs, err := conn.Query(ctx, "SELECT "+bucket+", "+c[1]+"::bytea FROM "+c[0])
		if err != nil {
			t.Fatal(err)
		}
		for rs.Next() {
			var b string
			var v []byte
			if err := rs.Scan(&b, &v); err != nil {
				t.Fatal(err)
			}
			if r, err := store.Readable(b, v); err == nil {
				v = r
			}
			check(c[0]+"."+c[1], v)
			n++
		}
	}
	if n < 1000 {
		t.Fatalf("read only %d values", n)
	}
}

// openPG opens a fresh database of the test server as a shared store.
func openPG(t *testing.T) (string, *pg.Store) {
	t.Helper()
	url := pgtest.Start(t)
	s, err := pg.Open(context.Background(), url, pg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return url, s
}
