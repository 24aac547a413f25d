package pg

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/pg/pgtest"
)

// TestPasswordInURLRefused: every libpq spelling of a password in the URL
// is refused before anything connects, and the message does not repeat it.
func TestPasswordInURLRefused(t *testing.T) {
	for _, url := range []string{
		"postgres://alice:s3cret@db.example.com/dossier",
		"postgresql://alice:s3cret@db.example.com:5433/dossier?sslmode=verify-full",
		"postgres://db.example.com/dossier?user=alice&password=s3cret",
		"host=db.example.com dbname=dossier password=s3cret",
		"host=db.example.com password = s3cret",
	} {
		_, err := Open(context.Background(), url, Options{})
		if err == nil || !strings.Contains(err.Error(), "PGPASSWORD") || !strings.Contains(err.Error(), "password_env") {
			t.Errorf("%s: %v", url, err)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the refusal repeats the password: %v", err)
		}
	}
}

// TestPasswordSources: a role authenticated by scram-sha-256 connects with
// its password from password_env or PGPASSWORD, and is refused, naming
// the server and what to set, without one.
func TestPasswordSources(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.CreateDB(t)
	db := dbName(url)
	srv.Exec(t, "DROP ROLE IF EXISTS "+pgtest.PasswordUser)
	srv.Exec(t, "CREATE ROLE "+pgtest.PasswordUser+" LOGIN PASSWORD 'pw-1234'")
	t.Cleanup(func() {
		srv.Exec(t, "DROP DATABASE "+db+" WITH (FORCE)")
		srv.Exec(t, "DROP ROLE "+pgtest.PasswordUser)
	})
	srv.Exec(t, "ALTER DATABASE "+db+" OWNER TO "+pgtest.PasswordUser)
	userURL := strings.Replace(url, "user=postgres", "user="+pgtest.PasswordUser, 1)
	ctx := context.Background()
	t.Setenv("PGPASSWORD", "")
	t.Setenv("PGPASSFILE", t.TempDir()+"/none")

	err := openAsk(ctx, userURL, Options{})
	if err == nil || !strings.Contains(err.Error(), "shared store "+pgtest.PasswordUser+"@") || !strings.Contains(err.Error(), "PGPASSWORD") {
		t.Fatalf("no password: %v", err)
	}
	if _, err := Open(ctx, userURL, Options{PasswordEnv: "DOSSIER_TEST_PW"}); err == nil || !strings.Contains(err.Error(), "$DOSSIER_TEST_PW, which is not set") {
		t.Fatalf("unset password_env: %v", err)
	}
	t.Setenv("DOSSIER_TEST_PW", "pw-1234")
	s := openURL(t, userURL, Options{PasswordEnv: "DOSSIER_TEST_PW"})
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.Describe(), "pw-1234") {
		t.Fatalf("Describe shows the password: %s", s.Describe())
	}
	t.Setenv("PGPASSWORD", "pw-1234")
	if err := openAsk(ctx, userURL, Options{}); err != nil {
		t.Fatalf("PGPASSWORD: %v", err)
	}
}

// openAsk opens the store at url and asks it a first question: Open
// connects only then.
func openAsk(ctx context.Context, url string, opts Options) error {
	s, err := Open(ctx, url, opts)
	if err != nil {
		return err
	}
	defer s.Close()
	_, err = s.Status(ctx)
	return err
}

// readAndWrite publishes a snapshot and returns it open, with an upload
// of another one in progress (closed when t ends).
func readAndWrite(t *testing.T, s *Store) (fixture, store.Remote, store.Upload) {
	t.Helper()
	fx := newFixture("r", "c1", manyFiles(5), 5)
	publish(t, s, fx)
	r := openFixture(t, s, fx)
	u, _, err := s.Begin(context.Background(), store.SnapshotKey{Repo: "r", Commit: "c2", Recipe: "x"}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return fx, r, u
}

// TestServerKilled: a server that goes away mid-session turns reads and
// writes into errors naming it, not hangs.
func TestServerKilled(t *testing.T) {
	srv := pgtest.NewServer(t)
	s := openURL(t, srv.CreateDB(t), Options{})
	fx, r, u := readAndWrite(t, s)
	ctx := context.Background()
	srv.Kill()
	if _, err := r.Get(ctx, store.BucketFiles, []byte(fx.files[0].Path)); err == nil || !strings.Contains(err.Error(), s.Describe()) {
		t.Fatalf("read from a dead server: %v", err)
	}
	if err := u.PutRecords(ctx, fx.files); err == nil || !strings.Contains(err.Error(), s.Describe()) {
		t.Fatalf("write to a dead server: %v", err)
	}
	if err := openAsk(ctx, s.URL(), Options{}); err == nil || !strings.Contains(err.Error(), s.Describe()) || !strings.Contains(err.Error(), "check that the server runs") {
		t.Fatalf("connect to a dead server: %v", err)
	}
}

// TestBackendsTerminated: reads go on after an administrator ended the
// store's sessions (the pool replaces dead connections), and an upload
// whose session died says so.
func TestBackendsTerminated(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.CreateDB(t)
	s := openURL(t, url, Options{})
	fx, r, u := readAndWrite(t, s)
	ctx := context.Background()
	srv.Terminate(t, dbName(url))
	if err := u.PutRecords(ctx, fx.files); err == nil || !strings.Contains(err.Error(), s.Describe()) {
		t.Fatalf("write on a terminated session: %v", err)
	}
	v, err := r.Get(ctx, store.BucketFiles, []byte(fx.files[0].Path))
	if err != nil || string(v) != string(fx.files[0].Values[store.BucketFiles]) {
		t.Fatalf("read after the sessions ended: %q, %v", v, err)
	}
}

// TestServerFrozen: a server that stops answering (its processes
// stopped, as a dead network looks) is an error within Timeout, for
// reads on an open connection and for connecting.
func TestServerFrozen(t *testing.T) {
	srv := pgtest.NewServer(t)
	url := srv.CreateDB(t)
	s := openURL(t, url, Options{Timeout: time.Second})
	fx := newFixture("r", "c1", manyFiles(3), 3)
	publish(t, s, fx)
	r := openFixture(t, s, fx)
	pids := append(srv.Backends(t, dbName(url)), srv.PID())
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGSTOP)
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	})
	ctx := context.Background()
	_, err := r.Get(ctx, store.BucketFiles, []byte(fx.files[0].Path))
	if err == nil || !strings.Contains(err.Error(), s.Describe()) || !strings.Contains(err.Error(), "did not answer in time") {
		t.Fatalf("read from a frozen server: %v", err)
	}
	// Open connects at the first question.
	s2, err := Open(ctx, url+"&connect_timeout=1", Options{})
	if err == nil {
		defer s2.Close()
		_, err = s2.Snapshot(ctx, fx.key, 0)
	}
	if err == nil || !strings.Contains(err.Error(), s.Describe()) {
		t.Fatalf("connect to a frozen server: %v", err)
	}
}
