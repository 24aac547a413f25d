package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

// TestGC: gc drops a snapshot no ref keeps and the records only it held,
// keeps the records it shared with a kept snapshot (which still reads
// whole), keeps what a ref points at, and refuses to run during an upload.
func TestGC(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	files := manyFiles(10)
	a := newFixture("r", "c1", files, 5)
	publish(t, s, a)
	files["pkg1/file001.go"] = 2
	b := newFixture("r", "c2", files, 5)
	publish(t, s, b)
	// another repository's only snapshot, whose files differ from r's
	other := newFixture("other", "c1", map[string]int{"a.go": 1, "b.go": 1, "c.go": 1}, 2)
	publish(t, s, other)
	noGrace := GCOptions{KeepLatest: 1}

	la, err := s.Latest(ctx, "r", "")
	if err != nil || la.Commit != "c2" {
		t.Fatal(la, err)
	}
	if err := s.SetRef(ctx, "r", "release", snapshotID(t, s, a)); err != nil {
		t.Fatal(err)
	}
	rep, err := s.GC(ctx, noGrace)
	if err != nil || rep.Snapshots != 0 || rep.Records != 0 {
		t.Fatalf("gc with a ref on the old snapshot: %+v, %v", rep, err)
	}
	if err := s.SetRef(ctx, "r", "release", snapshotID(t, s, b)); err != nil {
		t.Fatal(err)
	}

	u, _, err := s.Begin(ctx, store.SnapshotKey{Repo: "r", Commit: "c3", Recipe: "recipe-1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.GC(ctx, noGrace); err == nil || !strings.Contains(err.Error(), "an upload is in progress") {
		t.Fatalf("gc during an upload: %v", err)
	}
	u.Close()

	rep, err = s.GC(ctx, noGrace)
	// c1 of r goes; so does the abandoned c3 (building, no grace); the
	// old version of file001 is the only record no snapshot holds.
	if err != nil || rep.Snapshots != 2 || rep.Records != 1 || rep.Bytes == 0 {
		t.Fatalf("gc: %+v, %v; want 2 snapshots and 1 record dropped", rep, err)
	}
	if _, err := s.Snapshot(ctx, a.key, 0); err == nil {
		t.Fatal("the dropped snapshot still opens")
	}
	checkReads(t, openFixture(t, s, b), b)
	checkReads(t, openFixture(t, s, other), other)
	if n := count(t, s, "SELECT count(*) FROM dossier_records"); n != 13 {
		t.Fatalf("%d records left, want 13 (10 of r@c2, 3 of other)", n)
	}
	if rep, err := s.GC(ctx, noGrace); err != nil || rep != (GCReport{}) {
		t.Fatalf("second gc: %+v, %v", rep, err)
	}
}

// TestGCGrace: within the grace period an interrupted upload keeps its
// snapshot row and records, so it resumes sending nothing twice.
func TestGCGrace(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	fx := newFixture("r", "c1", manyFiles(6), 2)
	u, _, err := s.Begin(ctx, fx.key, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := u.PutRecords(ctx, fx.files[:4]); err != nil {
		t.Fatal(err)
	}
	u.Close()
	if rep, err := s.GC(ctx, DefaultGC); err != nil || rep != (GCReport{}) {
		t.Fatalf("gc within grace: %+v, %v", rep, err)
	}
	u, _, err = s.Begin(ctx, fx.key, "")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if missing, err := u.Missing(ctx, fx.keys()); err != nil || len(missing) != 2 {
		t.Fatalf("missing after gc: %d, %v; want 2", len(missing), err)
	}
}

func snapshotID(t *testing.T, s *Store, fx fixture) int64 {
	t.Helper()
	var id int64
	if err := s.pool.QueryRow(context.Background(), `SELECT s.id FROM dossier_snapshots s JOIN dossier_repos r ON r.id = s.repo_id
		WHERE r.name = $1 AND s.commit = $2`, fx.key.Repo, fx.key.Commit).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestStatus: the status of a fresh database, then of a store with
// snapshots, refs and an upload in progress.
func TestStatus(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	st, err := s.Status(ctx)
	if err != nil || st.SchemaVersion != 0 || len(st.Pending) != len(knownMigrations) || st.ServerVersion == "" || st.PGVector != "not installed" {
		t.Fatalf("fresh: %+v, %v", st, err)
	}
	fx := newFixture("r", "c1", manyFiles(4), 2)
	publish(t, s, fx)
	if err := s.SetRef(ctx, "r", "main", snapshotID(t, s, fx)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRef(ctx, "other", "main", snapshotID(t, s, fx)); err == nil {
		t.Fatal("a ref of one repository pointed at another's snapshot")
	}
	u, _, err := s.Begin(ctx, store.SnapshotKey{Repo: "r", Commit: "c2", Recipe: "x"}, "m/4")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	st, err = s.Status(ctx)
	// 0002 (vectors) stays pending on a server without pgvector.
	if err != nil || st.SchemaVersion != 3 || st.KnownVersion != KnownVersion() || len(st.Pending) != 1 || st.Size == 0 || len(st.Repos) != 1 {
		t.Fatalf("status: %+v, %v", st, err)
	}
	snaps := st.Repos[0].Snapshots
	if len(snaps) != 2 || snaps[0].State != "building" || snaps[0].Model != "m/4" || snaps[0].Finished != nil ||
		snaps[1].State != "ready" || snaps[1].Files != 4 || snaps[1].Finished == nil || strings.Join(snaps[1].Refs, ",") != "main" {
		t.Fatalf("snapshots: %+v", snaps)
	}
	names, err := s.Repos(ctx)
	if err != nil || strings.Join(names, ",") != "r" {
		t.Fatal(names, err)
	}
	if _, err := s.Latest(ctx, "nope", ""); !errors.Is(err, store.ErrNotFound) || !strings.Contains(err.Error(), "it holds: r") {
		t.Fatalf("latest of an unknown repository: %v", err)
	}
	exec(t, s, "INSERT INTO dossier_schema_migrations (version, name) VALUES (9999, '9999_future')")
	if st, err := s.Status(ctx); err == nil || st.SchemaVersion != 9999 {
		t.Fatalf("status of a newer store: %+v, %v", st, err)
	}
}

// TestLinkedSnapshotCheckedAtFirstRead: a link's snapshot is opened by id
// with a connection only, and checked with the first read (in the same
// round trip as a Fetch): once gc dropped it, every read reports it,
// none reads as absent.
func TestLinkedSnapshotCheckedAtFirstRead(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	files := manyFiles(4)
	link := func(fx fixture) store.Link {
		return store.Link{URL: s.url, SnapshotKey: fx.key, Snapshot: snapshotID(t, s, fx)}
	}
	for i, read := range []func(r store.Remote) error{
		func(r store.Remote) error {
			_, err := r.Fetch(ctx, []store.Read{{Bucket: store.BucketBlobs, Key: []byte("pkg0/file000.go")}})
			return err
		},
		func(r store.Remote) error {
			_, err := r.Get(ctx, store.BucketBlobs, []byte("pkg0/file000.go"))
			return err
		},
		func(r store.Remote) error {
			return r.Scan(ctx, store.BucketFiles, nil, 0, func(k, v []byte) bool { return true })
		},
	} {
		old := newFixture("r", fmt.Sprintf("old%d", i), files, 5)
		publish(t, s, old)
		dropped, err := OpenSnapshot(ctx, link(old))
		if err != nil {
			t.Fatal(err)
		}
		files["pkg1/file001.go"] = i + 2
		latest := newFixture("r", fmt.Sprintf("new%d", i), files, 5)
		publish(t, s, latest)
		if rep, err := s.GC(ctx, GCOptions{KeepLatest: 1}); err != nil || rep.Snapshots == 0 {
			t.Fatalf("gc: %+v, %v", rep, err)
		}
		err = read(dropped)
		dropped.Close()
		if err == nil || !strings.Contains(err.Error(), "holds no snapshot") {
			t.Fatalf("read %d of a snapshot gc dropped after its link was opened: %v", i, err)
		}
		live, err := OpenSnapshot(ctx, link(latest))
		if err != nil {
			t.Fatal(err)
		}
		checkReads(t, live, latest)
		wrong := link(latest)
		wrong.Commit = "another"
		live.Close()
		r, err := OpenSnapshot(ctx, wrong)
		if err != nil {
			t.Fatal(err)
		}
		err = read(r)
		r.Close()
		if err == nil || !strings.Contains(err.Error(), "the store was rebuilt?") {
			t.Fatalf("read %d by a link whose id names another snapshot: %v", i, err)
		}
	}
}
