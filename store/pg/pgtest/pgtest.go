// Package pgtest starts throwaway PostgreSQL servers for tests: a cluster
// made by initdb in a temporary directory, served by postgres on a Unix
// socket in that directory (no TCP), as an unprivileged user when the
// tests run as root (initdb and postgres refuse root). A test binary
// shares one server (TestMain calls Main) and every test gets a fresh
// database on it; tests that stop the server start their own.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PasswordUser is a role whose connections pg_hba.conf authenticates by
// password (scram-sha-256); every other role is trusted on the socket.
// Tests create it with CREATE ROLE ... PASSWORD.
const PasswordUser = "pwuser"

// Server is one running throwaway cluster.
type Server struct {
	Dir  string // the cluster's directory: data/, the socket and log
	cmd  *exec.Cmd
	done chan struct{} // closed when postgres exits
	mu   sync.Mutex
	dbs  int
}

var (
	mainActive bool
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
)

// Main runs a test binary's tests (call it from TestMain) and stops the
// shared server afterwards.
func Main(m *testing.M) {
	mainActive = true
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	os.Exit(code)
}

// Start returns the URL of a fresh, empty database, dropped when t ends,
// on the binary's shared server (a server of t's own when TestMain does
// not call Main). It skips t when no PostgreSQL binaries are installed.
func Start(t testing.TB) string {
	t.Helper()
	return Shared(t).CreateDB(t)
}

// Shared returns the test binary's shared server.
func Shared(t testing.TB) *Server {
	t.Helper()
	bin := binDir(t)
	if !mainActive {
		return NewServer(t)
	}
	sharedOnce.Do(func() { shared, sharedErr = start(bin) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// NewServer starts a server of t's own, stopped and removed when t ends:
// for tests that stop or freeze it.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s, err := start(binDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// binDir finds initdb and postgres: the newest /usr/lib/postgresql/*/bin
// (Debian keeps them off PATH), else PATH. It skips t when there are none.
func binDir(t testing.TB) string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return pgMajor(dirs[i]) > pgMajor(dirs[j]) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
			return d
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if d := filepath.Dir(p); isExec(filepath.Join(d, "postgres")) {
			return d
		}
	}
	t.Skip("PostgreSQL server binaries (initdb, postgres) not found in /usr/lib/postgresql/*/bin or PATH: install Debian's postgresql package to run the shared store's tests")
	return ""
}

func pgMajor(dir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return n
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode()&0o111 != 0
}

func start(bin string) (*Server, error) {
	// Not t.TempDir: a Unix socket path must stay under 108 bytes.
	dir, err := os.MkdirTemp("", "dossier-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, done: make(chan struct{})}
	cred, err := credential(dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	data := filepath.Join(dir, "data")
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust",
		"--no-sync", "-E", "UTF8", "--locale=C", "--no-instructions")
	initdb.Dir = dir
	initdb.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	hba := fmt.Sprintf("local all %s scram-sha-256\nlocal all all trust\n", PasswordUser)
	if err := os.WriteFile(filepath.Join(data, "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	log, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer log.Close()
	if cred != nil {
		os.Chown(log.Name(), int(cred.Uid), int(cred.Gid))
	}
	s.cmd = exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-k", dir,
		"-c", "listen_addresses=", "-c", "fsync=off", "-c", "synchronous_commit=off",
		"-c", "full_page_writes=off", "-c", "max_connections=100", "-c", "shared_buffers=16MB")
	s.cmd.Dir = dir
	s.cmd.Stdout, s.cmd.Stderr = log, log
	// Pdeathsig: a test binary killed by its timeout takes its server
	// with it (SIGINT is postgres' fast shutdown).
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGINT}
	if err := s.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start postgres: %v", err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	if err := s.waitReady(); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// credential returns the unprivileged user to run postgres as when the
// tests run as root (nobody), handing it dir; nil otherwise.
func credential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return nil, fmt.Errorf("running as root, postgres needs an unprivileged user: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
}

func (s *Server) waitReady() error {
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, err := pgx.Connect(ctx, s.URL("postgres"))
		cancel()
		if err == nil {
			c.Close(context.Background())
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("postgres exited at start:\n%s", s.Log())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres did not accept connections within a minute: %v\n%s", err, s.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Log returns the server's log.
func (s *Server) Log() string {
	raw, _ := os.ReadFile(filepath.Join(s.Dir, "log"))
	return string(raw)
}

// URL is the URL of database db on s, as user postgres.
func (s *Server) URL(db string) string {
	return fmt.Sprintf("postgres:///%s?host=%s&user=postgres&sslmode=disable", db, url.QueryEscape(s.Dir))
}

// CreateDB creates a fresh database on s, dropped when t ends, and
// returns its URL.
func (s *Server) CreateDB(t testing.TB) string {
	t.Helper()
	s.mu.Lock()
	s.dbs++
	db := fmt.Sprintf("t%d", s.dbs)
	s.mu.Unlock()
	s.Exec(t, "CREATE DATABASE "+db)
	t.Cleanup(func() {
		select {
		case <-s.done: // stopped by the test
		default:
			s.Exec(t, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
		}
	})
	return s.URL(db)
}

// admin runs fn on a connection as postgres to the postgres database.
func (s *Server) admin(t testing.TB, fn func(ctx context.Context, c *pgx.Conn) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if err := fn(ctx, c); err != nil {
		t.Fatal(err)
	}
}

// Exec runs sql as postgres in the postgres database.
func (s *Server) Exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	s.admin(t, func(ctx context.Context, c *pgx.Conn) error {
		if _, err := c.Exec(ctx, sql, args...); err != nil {
			return fmt.Errorf("%s: %v", sql, err)
		}
		return nil
	})
}

// Backends returns the process ids of the server's backends serving
// database db (for a test that freezes or kills one).
func (s *Server) Backends(t testing.TB, db string) []int {
	t.Helper()
	var out []int
	s.admin(t, func(ctx context.Context, c *pgx.Conn) error {
		rows, _ := c.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = $1", db)
		pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		for _, p := range pids {
			out = append(out, int(p))
		}
		return err
	})
	return out
}

// Terminate ends every connection to database db, as an administrator's
// pg_terminate_backend or a server restart does.
func (s *Server) Terminate(t testing.TB, db string) {
	t.Helper()
	s.Exec(t, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", db)
}

// PID is the process id of the postmaster.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Kill stops the server at once (postgres' immediate shutdown), as a
// crash or a pulled plug would; it stays down.
func (s *Server) Kill() {
	s.cmd.Process.Signal(syscall.SIGQUIT)
	<-s.done
}

// Stop shuts the server down and removes its directory.
func (s *Server) Stop() {
	s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
	os.RemoveAll(s.Dir)
}
