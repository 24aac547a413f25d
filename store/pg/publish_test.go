package pg

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/store"
)

// TestRoundTrip: every bucket kind reads back byte for byte, through
// COPY and through the INSERTs PGlite gets; Scan crosses batches (more
// than 512 symbols and postings).
func TestRoundTrip(t *testing.T) {
	for _, noCopy := range []bool{false, true} {
		name := "copy"
		if noCopy {
			name = "insert"
		}
		t.Run(name, func(t *testing.T) {
			url := openTest(t).URL()
			s := openURL(t, url, Options{NoCopy: noCopy})
			fx := newFixture("github.com/acme/app", "c1", manyFiles(150), 1300)
			if sent := publish(t, s, fx); sent != 150 {
				t.Fatalf("sent %d files, want 150", sent)
			}
			checkReads(t, openFixture(t, s, fx), fx)
			if n := count(t, s, "SELECT count(*) FROM dossier_record_chunks"); n != 150 {
				t.Fatalf("%d chunk rows, want one a file", n)
			}
			// A Remote through the registered opener (store.OpenRemote) reads the same.
			r, err := store.OpenRemote(context.Background(), store.Link{URL: url, SnapshotKey: fx.key})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			checkReads(t, r, fx)
			if !strings.Contains(r.Describe(), s.Describe()) || !strings.Contains(r.Describe(), "github.com/acme/app@c1") {
				t.Fatalf("Describe() = %q", r.Describe())
			}
		})
	}
}

// TestSharedRecords: a second snapshot a commit away sends only the
// changed file, reads its own version of it, and the first snapshot
// reads as before (its symbols are not mixed into the second's).
func TestSharedRecords(t *testing.T) {
	s := openTest(t)
	files := manyFiles(40)
	a := newFixture("r", "c1", files, 10)
	publish(t, s, a)
	files["pkg1/file001.go"] = 2
	files["new.go"] = 1
	b := newFixture("r", "c2", files, 20)
	if sent := publish(t, s, b); sent != 2 {
		t.Fatalf("second snapshot sent %d files, want 2 (one changed, one added)", sent)
	}
	ra, rb := openFixture(t, s, a), openFixture(t, s, b)
	checkReads(t, ra, a)
	checkReads(t, rb, b)
	if ra.Generation() == rb.Generation() {
		t.Fatal("two snapshots share a generation")
	}
	if again := publish(t, s, b); again != 0 {
		t.Fatalf("publishing a held snapshot sent %d files", again)
	}
}

// TestConcurrentPublishers: the second writer of a key waits for the
// first (the advisory lock), then finds the snapshot done.
func TestConcurrentPublishers(t *testing.T) {
	first := openTest(t)
	second := openURL(t, first.URL(), Options{})
	ctx := context.Background()
	fx := newFixture("r", "c1", manyFiles(20), 5)
	u, done, err := first.Begin(ctx, fx.key, "m/8")
	if err != nil || done {
		t.Fatal(done, err)
	}
	defer u.Close()
	type result struct {
		done bool
		err  error
	}
	res := make(chan result, 1)
	go func() {
		u2, done, err := second.Begin(ctx, fx.key, "m/8")
		if err == nil {
			u2.Close()
		}
		res <- result{done, err}
	}()
	// Wait until the second writer is blocked on the lock.
	for count(t, first, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted") == 0 {
		select {
		case r := <-res:
			t.Fatalf("second writer did not wait: done=%v err=%v", r.done, r.err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := u.PutRecords(ctx, fx.files); err != nil {
		t.Fatal(err)
	}
	if err := u.Finish(ctx, fx.keys(), fx.pairFunc()); err != nil {
		t.Fatal(err)
	}
	u.Close()
	if r := <-res; r.err != nil || !r.done {
		t.Fatalf("second writer: done=%v err=%v, want done", r.done, r.err)
	}
	if n := count(t, first, "SELECT count(*) FROM dossier_snapshots"); n != 1 {
		t.Fatalf("%d snapshots", n)
	}
}

// TestReaderDuringWrite: a snapshot being built cannot be opened, the
// repository's latest stays the previous ready one, and Finish makes
// the new one readable at once.
func TestReaderDuringWrite(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	old := newFixture("r", "c1", manyFiles(10), 5)
	publish(t, s, old)
	fx := newFixture("r", "c2", manyFiles(12), 5)
	u, _, err := s.Begin(ctx, fx.key, "")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if err := u.PutRecords(ctx, fx.files); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Snapshot(ctx, fx.key, 0); err == nil || !strings.Contains(err.Error(), "still being uploaded") {
		t.Fatalf("opened a snapshot being built: %v", err)
	}
	l, err := s.Latest(ctx, "r", "")
	if err != nil || l.Commit != "c1" {
		t.Fatalf("latest during the upload: %+v, %v", l, err)
	}
	checkReads(t, openFixture(t, s, old), old)
	if err := u.Finish(ctx, fx.keys(), fx.pairFunc()); err != nil {
		t.Fatal(err)
	}
	checkReads(t, openFixture(t, s, fx), fx)
	if l, err := s.Latest(ctx, "r", ""); err != nil || l.Commit != "c2" || l.URL != s.URL() {
		t.Fatalf("latest after: %+v, %v", l, err)
	}
}

// TestInterruptedUpload: an upload closed before Finish, or whose
// connection the server dropped mid-way, leaves the store usable; the
// next Begin resumes and sends only what is missing.
func TestInterruptedUpload(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	fx := newFixture("r", "c1", manyFiles(30), 50)
	u, _, err := s.Begin(ctx, fx.key, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := u.PutRecords(ctx, fx.files[:10]); err != nil {
		t.Fatal(err)
	}
	u.Close() // killed before Finish

	u, done, err := s.Begin(ctx, fx.key, "")
	if err != nil || done {
		t.Fatalf("resume: done=%v err=%v", done, err)
	}
	missing, err := u.Missing(ctx, fx.keys())
	if err != nil || !slices.Equal(missing, fx.keys()[10:]) {
		t.Fatalf("missing %d keys (%v), want the 20 not sent", len(missing), err)
	}
	if err := u.PutRecords(ctx, fx.files[10:20]); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := u.PutRecords(cancelled, fx.files[20:]); err == nil || !strings.Contains(err.Error(), s.Describe()) {
		t.Fatalf("PutRecords with a cancelled context: %v", err)
	}
	u.Close()

	u, _, err = s.Begin(ctx, fx.key, "")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if missing, err := u.Missing(ctx, fx.keys()); err != nil || !slices.Equal(missing, fx.keys()[20:]) {
		t.Fatalf("missing %d keys (%v), want the last 10", len(missing), err)
	}
	if err := u.Finish(ctx, fx.keys(), fx.pairFunc()); err == nil || !strings.Contains(err.Error(), "10 files have no records") {
		t.Fatalf("Finish with records missing: %v", err)
	}
	if _, err := s.Snapshot(ctx, fx.key, 0); err == nil {
		t.Fatal("a failed Finish made the snapshot readable")
	}
	if err := u.PutRecords(ctx, fx.files[20:]); err != nil {
		t.Fatal(err)
	}
	if err := u.Finish(ctx, fx.keys(), fx.pairFunc()); err != nil {
		t.Fatal(err)
	}
	checkReads(t, openFixture(t, s, fx), fx)
}

// TestUploadRefusesBadInput: buckets of the wrong kind and a file listed
// twice are refused with what is wrong.
func TestUploadRefusesBadInput(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	fx := newFixture("r", "c1", manyFiles(3), 1)
	u, _, err := s.Begin(ctx, fx.key, "")
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	bad := fx.files[0]
	bad.Values = map[string][]byte{store.BucketMeta: []byte("x")}
	if err := u.PutRecords(ctx, []store.FileRows{bad}); err == nil || !strings.Contains(err.Error(), `bucket "meta" is not a per-file bucket`) {
		t.Fatalf("per-snapshot bucket in a record: %v", err)
	}
	if err := u.PutRecords(ctx, fx.files); err != nil {
		t.Fatal(err)
	}
	twice := append(fx.keys(), fx.keys()[0])
	if err := u.Finish(ctx, twice, fx.pairFunc()); err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Fatalf("a file listed twice: %v", err)
	}
	wrong := func(put func(store.KV) error) error {
		return put(store.KV{Bucket: store.BucketFiles, Key: []byte("x"), Value: []byte("y")})
	}
	if err := u.Finish(ctx, fx.keys(), wrong); err == nil || !strings.Contains(err.Error(), `bucket "files" is not a per-snapshot bucket`) {
		t.Fatalf("per-file bucket in the pairs: %v", err)
	}
	if _, _, err := s.Begin(ctx, store.SnapshotKey{Repo: "r"}, ""); err == nil {
		t.Fatal("began a snapshot without commit and recipe")
	}
}

// TestGramsOfOlderRecords: records stored without trigrams (before
// migration 0003) leave their snapshots searched by reading every text,
// count as missing, and get their trigrams from the next upload that
// holds them.
func TestGramsOfOlderRecords(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	old := newFixture("r", "c1", manyFiles(6), 3)
	for i := range old.files {
		old.files[i].Grams = nil
	}
	publish(t, s, old)
	r := openFixture(t, s, old)
	if _, ok, err := r.Grep(ctx, store.GramHashes([][][]byte{{[]byte("text")}})); ok || err != nil {
		t.Fatalf("a snapshot without trigrams: ok %v, %v", ok, err)
	}
	next := newFixture("r", "c2", manyFiles(6), 3)
	if sent := publish(t, s, next); sent != len(next.files) {
		t.Fatalf("%d of %d records sent again, want all: they lack trigrams", sent, len(next.files))
	}
	checkReads(t, openFixture(t, s, next), next)
	if n := count(t, s, "SELECT count(*) FROM dossier_records"); n != len(next.files) {
		t.Fatalf("%d records, want %d: the records were stored twice", n, len(next.files))
	}
}
