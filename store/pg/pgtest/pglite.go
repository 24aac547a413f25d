// Package pgtest starts throwaway Postgres servers for the tests of the
// shared store (store/pg).
//
// StartPGlite serves PGlite (Postgres 18 compiled to WASM, run by node)
// with pgvector and pg_trgm on a Unix socket, its data in memory: the
// only Postgres with pgvector a test can start on this machine (Debian has
// no pgvector package). It is a real Postgres backend, but it serves one
// connection at a time and breaks on COPY, so a test talks to it through
// one pgx.Conn and stores rows with multi-row INSERTs. The node packages
// are pinned in pglite/package.json; `make test` installs them (npm ci).
package pgtest

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgliteReady is how long a PGlite server may take to start: its initdb
// runs in WASM, 5 to 15 s on a busy 2-core machine.
const pgliteReady = 3 * time.Minute

// StartPGlite starts a PGlite server with pgvector for the test and
// returns its connection URL; the server stops when the test ends. The
// test is skipped when node or the npm packages are missing.
func StartPGlite(t testing.TB) string { return startPGlite(t) }

// StartPGliteWithoutVector starts a PGlite server whose pgvector is not
// installed, as on a Postgres server without the extension.
func StartPGliteWithoutVector(t testing.TB) string { return startPGlite(t, "--no-vector") }

// pgliteDir is the node package that runs the server (server.mjs).
func pgliteDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "pglite")
}

// pgliteTool returns node and server.mjs, or skips the test saying what
// it needs.
func pgliteTool(t testing.TB) (node, script string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: the Postgres vector tests run PGlite, which needs node 18 or later")
	}
	dir := pgliteDir()
	for _, pkg := range []string{"pglite", "pglite-pgvector", "pglite-socket"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@electric-sql", pkg, "package.json")); err != nil {
			t.Skipf("PGlite is not installed (no @electric-sql/%s): run `make test` (or `npm ci --prefix %s`)", pkg, dir)
		}
	}
	return node, filepath.Join(dir, "server.mjs")
}

func startPGlite(t testing.TB, flags ...string) string {
	t.Helper()
	node, script := pgliteTool(t)
	// A short directory: a Unix socket path holds at most 107 bytes.
	dir, err := os.MkdirTemp("", "pglite")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	cmd := exec.Command(node, append([]string{script, filepath.Join(dir, ".s.PGSQL.5432")}, flags...)...)
	cmd.Dir = pgliteDir()
	var stderr syncBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe() // the server exits when it closes
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start PGlite: %v", err)
	}
	exited := make(chan struct{})
	ready := make(chan bool, 1)
	go func() {
		// Lines before "ready" are the server's log (PGLITE_DEBUG=1):
		// kept with stderr for the failure message.
		sc := bufio.NewScanner(stdout)
		found := false
		for !found && sc.Scan() {
			found = sc.Text() == "ready"
			if !found {
				stderr.Write(append(sc.Bytes(), '\n'))
			}
		}
		ready <- found
		io.Copy(&stderr, stdout)
	}()
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	select {
	case ok := <-ready:
		if !ok {
			cmd.Process.Kill()
			<-exited
			t.Fatalf("PGlite did not start: %s", strings.TrimSpace(stderr.String()))
		}
	case <-time.After(pgliteReady):
		cmd.Process.Kill()
		t.Fatalf("PGlite did not start within %v: %s", pgliteReady, strings.TrimSpace(stderr.String()))
	}
	return "postgres://postgres@/postgres?host=" + dir + "&port=5432&sslmode=disable"
}

// ConnectPGlite opens a connection to the PGlite server at url, closed
// when the test ends. PGlite is one backend session that outlives its
// connections: the connection starts with DISCARD ALL, which drops what
// the previous one left (prepared statements, whose names pgx derives from
// their text and would reuse, settings, temporary tables).
func ConnectPGlite(t testing.TB, url string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect to PGlite at %s: %v", url, err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	if _, err := conn.Exec(ctx, "DISCARD ALL", pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatalf("PGlite at %s: DISCARD ALL: %v", url, err)
	}
	return conn
}

// syncBuffer is a bytes.Buffer that the process's copier and the test may
// use at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
