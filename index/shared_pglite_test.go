package index_test

import (
	"context"
	"testing"

	"github.com/dossierhq/dossier/store/pg"
	"github.com/dossierhq/dossier/store/pg/pgtest"
)

// TestPGliteSnapshotAnswersAsTheLocalIndex is the conformance test with
// vectors: PGlite (Postgres in WASM) with pgvector, through its socket.
// The clone's hybrid and vector queries are answered by the server's
// vector index.
func TestPGliteSnapshotAnswersAsTheLocalIndex(t *testing.T) {
	// PGlite is one backend session for every connection: one at a time,
	// and no named prepared statements (they would outlive a connection).
	url := pgtest.StartPGlite(t) + "&pool_max_conns=1&default_query_exec_mode=exec"
	s, err := pg.Open(context.Background(), url, pg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	root := sharedRepo(t)
	clone := publishAndClone(t, root, s, url)
	sameAnswers(t, root, clone)
}
