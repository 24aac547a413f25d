package index_test

import (
	"context"
	"testing"

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
	url := pgtest.Start(t)
	ctx := context.Background()
	s, err := pg.Open(ctx, url, pg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
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
