package pg

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Options tune how a Store connects.
type Options struct {
	// PasswordEnv names an environment variable holding the password
	// (the [store] password_env setting); it wins over PGPASSWORD and
	// ~/.pgpass, which libpq's rules otherwise apply.
	PasswordEnv string
	// NoCopy writes with multi-row INSERTs instead of COPY, for servers
	// that cannot take COPY (PGlite). Open sets it by itself when the
	// server says it is PGlite.
	NoCopy bool
	// Timeout bounds each read or write round trip whose context has no
	// deadline (DefaultTimeout when zero): a server that stops answering
	// is an error, never a hang.
	Timeout time.Duration
}

// DefaultConnectTimeout bounds connecting when the URL sets no
// connect_timeout (libpq waits forever by default).
const DefaultConnectTimeout = 10 * time.Second

// DefaultTimeout is Options.Timeout when unset: generous enough for one
// batch of records over a slow link, short enough that a dead server is
// noticed.
const DefaultTimeout = 2 * time.Minute

// Store is an open shared store: one connection pool to one server.
type Store struct {
	pool   *pgxpool.Pool
	url    string // as given: it holds no password
	opts   Options
	server string // Describe()

	probeOnce sync.Once // see probe
	probeErr  error

	migrations []migration // knownMigrations, but for tests
	migMu      sync.Mutex
	migrated   bool
}

// Open connects to the store at url, as libpq spells it
// (postgres://user@host:port/db?sslmode=verify-full, or host=/dir for a
// Unix socket). The password comes from Options.PasswordEnv, PGPASSWORD or
// ~/.pgpass; a URL that holds one is refused, as dossier prints and
// records its URL.
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	if err := refusePassword(rawURL); err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("shared store URL %q: %v (see https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING)", redact(rawURL), err)
	}
	cc := cfg.ConnConfig
	if cc.ConnectTimeout == 0 {
		cc.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.PasswordEnv != "" {
		pw, ok := os.LookupEnv(opts.PasswordEnv)
		if !ok || pw == "" {
			return nil, fmt.Errorf("shared store %s: password_env names $%s, which is not set: export it, or use PGPASSWORD or ~/.pgpass", describeConfig(&cc.Config), opts.PasswordEnv)
		}
		cc.Password = pw
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	cfg.MaxConns = max(cfg.MaxConns, 4)
	if _, set := cfg.ConnConfig.RuntimeParams["default_query_exec_mode"]; !set && !strings.Contains(rawURL, "default_query_exec_mode") {
		// One round trip a statement, with no prepare before it: a
		// one-shot search asks a dozen different questions once each,
		// and a prepared statement pays its preparation as a round trip
		// of its own.
		cc.DefaultQueryExecMode = pgx.QueryExecModeExec
	}
	s := &Store{url: rawURL, opts: opts, server: describeConfig(&cc.Config), migrations: knownMigrations}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, s.wrap("connect", err)
	}
	s.pool = pool
	// The pool connects at the first query: a reader's first round trip
	// is its first question (see Snapshot), as a one-shot search pays
	// every one of them.
	return s, nil
}

// probe finds out, once, whether the server is PGlite, before the first
// write (see isPGlite).
func (s *Store) probe(ctx context.Context, q querier) error {
	s.probeOnce.Do(func() {
		var version string
		if s.probeErr = q.QueryRow(ctx, "SELECT version()").Scan(&version); s.probeErr == nil && isPGlite(version) {
			s.opts.NoCopy = true
		}
	})
	return s.probeErr
}

// isPGlite tells PGlite (Postgres compiled to WASM by Emscripten) from a
// real server by its version() string, which names the compiler
// ("compiled by emcc ...", "wasm32"): it takes one connection and no COPY.
func isPGlite(version string) bool {
	v := strings.ToLower(version)
	return strings.Contains(v, "emcc") || strings.Contains(v, "emscripten") || strings.Contains(v, "wasm")
}

// Describe names the server without its password: user@host:port/db.
func (s *Store) Describe() string { return s.server }

// URL is the URL the store was opened with (it never holds a password).
func (s *Store) URL() string { return s.url }

// Close closes the pool.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

func describeConfig(cc *pgconn.Config) string {
	host := cc.Host
	if strings.HasPrefix(host, "/") {
		return fmt.Sprintf("%s@[%s]:%d/%s", cc.User, host, cc.Port, cc.Database)
	}
	return fmt.Sprintf("%s@%s/%s", cc.User, net.JoinHostPort(host, fmt.Sprint(cc.Port)), cc.Database)
}

var dsnPassword = regexp.MustCompile(`(^|\s)password\s*=`)

// refusePassword refuses a URL holding a password, in either of libpq's
// spellings (URI user:password@ or ?password=, key=value password=).
func refusePassword(raw string) error {
	found := false
	if strings.HasPrefix(raw, "postgres://") || strings.HasPrefix(raw, "postgresql://") {
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("shared store URL: %v", err)
		}
		_, inUser := u.User.Password()
		found = inUser || u.Query().Has("password")
	} else {
		found = dsnPassword.MatchString(raw)
	}
	if found {
		return fmt.Errorf("shared store URL %s holds a password, which dossier would print and record: remove it and set PGPASSWORD, a password_env setting naming a variable that holds it, or ~/.pgpass", redact(raw))
	}
	return nil
}

var uriPassword = regexp.MustCompile(`(://[^:/@]*:)[^@]*@`)
var queryPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('[^']*'|[^&\s]*)`)

// redact hides a password in a URL for messages.
func redact(raw string) string {
	raw = uriPassword.ReplaceAllString(raw, "${1}xxxxx@")
	return queryPassword.ReplaceAllString(raw, "${1}xxxxx")
}

// withTimeout runs fn under ctx, bounded by Options.Timeout when ctx has
// no deadline of its own.
func (s *Store) withTimeout(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Deadline(); ok {
		return fn(ctx)
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	return fn(ctx)
}

// wrap turns an error of the server or the network into one that names
// the server and says what to do.
func (s *Store) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var pgErr *pgconn.PgError
	hint := ""
	switch {
	case errors.Is(err, context.Canceled):
		hint = "interrupted"
	case errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err):
		hint = fmt.Sprintf("the server did not answer in time (limit %s): check that it runs and the network reaches it", s.opts.Timeout)
	case errors.As(err, &pgErr):
		switch {
		case pgErr.Code == "28P01" || pgErr.Code == "28000":
			hint = "set the password with PGPASSWORD, a password_env setting or ~/.pgpass, and check the user"
		case pgErr.Code == "3D000":
			hint = "create the database (createdb) or fix the URL"
		case strings.HasPrefix(pgErr.Code, "57P") || strings.HasPrefix(pgErr.Code, "08"):
			hint = "the server closed the connection (restarted or stopped): run the command again once it is up"
		case pgErr.Code == "42501":
			hint = "the user may not do this: grant it the privilege, or run `dossier store migrate` as the database's owner"
		case pgErr.Code == "42P01" || pgErr.Code == "42703" || pgErr.Code == "42883":
			hint = "the store's schema is not what this dossier expects: run `dossier store migrate`"
		}
	default:
		var ce *pgconn.ConnectError
		if errors.As(err, &ce) {
			hint = "check that the server runs and the URL's host, port and sslmode are right"
		} else if isConnLost(err) {
			hint = "the connection to the server was lost: run the command again once it is reachable"
		}
	}
	if hint != "" {
		return fmt.Errorf("shared store %s: %s: %w (%s)", s.server, op, err, hint)
	}
	return fmt.Errorf("shared store %s: %s: %w", s.server, op, err)
}

func isConnLost(err error) bool {
	var ne net.Error
	msg := err.Error()
	return errors.As(err, &ne) || strings.Contains(msg, "conn closed") || strings.Contains(msg, "unexpected EOF") ||
		strings.Contains(msg, "broken pipe") || strings.Contains(msg, "connection reset")
}
