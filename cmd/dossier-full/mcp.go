package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/cmd/internal/cli"
	setup "github.com/dossierhq/dossier/cmd/internal/workspace"
	"github.com/dossierhq/dossier/evidence/mcp"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/ui/termsafe"
)

type mcpOptions struct {
	*globals
	readOnly    bool
	debug       bool
	debugLog    string
	http        string
	allowRemote bool
	tokenEnv    string
	// allowOrigins are the web origins whose pages may call the server
	// besides its own (see originCheck).
	allowOrigins []string
}

func newMCPCmd(g *globals) *cobra.Command {
	o := &mcpOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the workspace to coding agents over the Model Context Protocol (stdio or HTTP)",
		Long: "Serve search, read, related, assemble and the flow commands as MCP tools, over standard\n" +
			"input and output (the protocol: nothing else is written there) or, with --http, over\n" +
			"streamable HTTP. The index is kept current for the server's life (as index --watch);\n" +
			"a missing one is built at start. Nothing outside the workspace is served and secrets\n" +
			"are redacted in every result. Over HTTP, a web page of another origin is refused (403)\n" +
			"unless --allow-origin names it. With --debug every request is logged to\n" +
			"$XDG_CACHE_HOME/dossier/debug.log.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.BoolVar(&o.readOnly, "read-only", false, "serve only search, read, related and assemble (no tool changes a flow)")
	f.BoolVar(&o.debug, "debug", false, "log every request to $XDG_CACHE_HOME/dossier/debug.log")
	f.StringVar(&o.debugLog, "debug-log", "", "log every request to this file (implies --debug)")
	f.StringVar(&o.http, "http", "", "serve streamable HTTP on this address (127.0.0.1:PORT) instead of stdio")
	f.BoolVar(&o.allowRemote, "allow-remote", false, "allow --http on an address that is not loopback (needs --token-env)")
	f.StringVar(&o.tokenEnv, "token-env", "", "with --http, require the bearer token held in this environment variable")
	f.StringArrayVar(&o.allowOrigins, "allow-origin", nil, "with --http, also serve web pages of this origin (scheme://host[:port], repeatable); other cross-origin requests get 403")
	return cmd
}

func (o *mcpOptions) run(cmd *cobra.Command) error {
	if err := o.checkHTTP(); err != nil {
		return err
	}
	token := ""
	if o.tokenEnv != "" {
		if token = os.Getenv(o.tokenEnv); token == "" {
			return fmt.Errorf("%w: --token-env %s: the variable is empty or unset; export the token in it", errUsage, o.tokenEnv)
		}
	}
	root, cfg, err := o.workspace()
	if err != nil {
		return err
	}
	logger, closeLog := o.logger()
	defer closeLog()
	// The index keeper's notices and the server's come from two goroutines.
	stderr := &serialWriter{w: cmd.ErrOrStderr()}
	searcher := search.NewEngine()
	searcher.AllowEndpoint(cfg.Embed)
	iopts := setup.IndexOptions("", cfg)
	iopts.Notice = func(msg string) { fmt.Fprintln(stderr, "dossier:", msg) }
	if iopts.Model, iopts.Embedder, err = index.NewEmbedder(cfg.Embed, ""); err != nil {
		return err
	}
	srv := mcp.New(mcp.Options{Root: root, Engine: newEngine(root, cfg), Search: searcher, Embedder: cfg.Embed.Provider,
		Index: iopts, ReadOnly: o.readOnly, Log: logger, Version: cli.Version().Short(), Notice: func(msg string) { fmt.Fprintln(stderr, "dossier mcp:", msg) }})
	ctx, cancel := context.WithCancel(cmd.Context())
	defer cancel()
	kept := make(chan error, 1)
	go func() {
		err := srv.Keep(ctx)
		if err != nil {
			// Search still answers from the index as it is; say why it
			// may be behind.
			fmt.Fprintln(stderr, "dossier mcp: keeping the index current:", err)
			logger.Printf("mcp index: %v", err)
		}
		kept <- err
	}()
	logger.Printf("mcp start root=%s read-only=%v http=%q", root, o.readOnly, o.http)
	if o.http != "" {
		err = o.serveHTTP(ctx, srv, token, stderr)
	} else {
		// Standard output is the protocol: the escaping writer of a
		// terminal would corrupt it.
		out := termsafe.Raw(cmd.OutOrStdout())
		err = srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(cmd.InOrStdin()), Writer: nopWriteCloser{out}})
	}
	cancel()
	<-kept
	logger.Printf("mcp stop: %v", err)
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) || cmd.Context().Err() != nil {
		return nil // the client hung up, or Ctrl-C
	}
	return err
}

// serialWriter serializes writes.
type serialWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *serialWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// checkHTTP refuses an address that is not loopback unless told so, and
// a remote one without a token.
func (o *mcpOptions) checkHTTP() error {
	if o.http == "" {
		if o.allowRemote || o.tokenEnv != "" || len(o.allowOrigins) > 0 {
			return fmt.Errorf("%w: --allow-remote, --token-env and --allow-origin go with --http", errUsage)
		}
		return nil
	}
	if _, err := originCheck(nil, o.allowOrigins); err != nil {
		return err
	}
	host, _, err := net.SplitHostPort(o.http)
	if err != nil {
		return fmt.Errorf("%w: --http %q: give HOST:PORT, e.g. 127.0.0.1:8765", errUsage, o.http)
	}
	if isLoopback(host) {
		return nil
	}
	if !o.allowRemote {
		return fmt.Errorf("%w: --http %s is not a loopback address: the server reads the workspace; bind 127.0.0.1, or pass --allow-remote with --token-env", errUsage, o.http)
	}
	if o.tokenEnv == "" {
		return fmt.Errorf("%w: --http %s with --allow-remote needs --token-env NAME: a remote server requires a bearer token", errUsage, o.http)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveHTTP serves streamable HTTP at /mcp (and /) until ctx ends.
func (o *mcpOptions) serveHTTP(ctx context.Context, srv *mcp.Server, token string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", o.http)
	if err != nil {
		return fmt.Errorf("--http %s: %w", o.http, err)
	}
	// The SDK's handler refuses a Host that is not loopback on a loopback
	// address (a name rebound to 127.0.0.1); originCheck refuses pages of
	// other origins.
	h := http.Handler(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv.SDK() }, nil))
	if token != "" {
		h = requireToken(h, token)
	}
	if h, err = originCheck(h, o.allowOrigins); err != nil {
		return err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stderr, "dossier mcp: serving http://%s/mcp\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// originCheck answers 403 to a request a web page sent from an origin other
// than the server's own and not in allowed: the MCP transport's rule
// against DNS rebinding (servers must validate Origin), so a page the
// user happens to open cannot search the workspace or change its flows.
// A request without Origin (an agent, curl) is not a browser's and
// passes. net/http's CrossOriginProtection decides: Sec-Fetch-Site when
// the browser sends it, else Origin against Host; a page on another port
// of localhost is another origin, refused unless allowed. It lets GET,
// HEAD and OPTIONS pass, but here a GET opens the event stream that
// carries results, so every method is checked as a POST is.
func originCheck(next http.Handler, allowed []string) (http.Handler, error) {
	p := http.NewCrossOriginProtection()
	for _, o := range allowed {
		if err := p.AddTrustedOrigin(o); err != nil {
			return nil, fmt.Errorf("%w: --allow-origin %q: give scheme://host[:port], e.g. http://localhost:6274: %v", errUsage, o, err)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		check := r
		if r.Method != http.MethodPost {
			c := *r // shallow: Check reads the method and headers only
			c.Method = http.MethodPost
			check = &c
		}
		if err := p.Check(check); err != nil {
			origin := r.Header.Get("Origin")
			http.Error(w, fmt.Sprintf("dossier mcp: refused a cross-origin request from Origin %q (%v): start the server with --allow-origin %s to serve that page", origin, err, origin), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	}), nil
}

// requireToken answers 401 to a request without the bearer token.
func requireToken(next http.Handler, token string) http.Handler {
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="dossier"`)
			http.Error(w, "dossier mcp: missing or wrong bearer token (Authorization: Bearer <the value of the --token-env variable>)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// logger opens the debug log (as the workbench's --debug does); without
// --debug it logs nothing.
func (o *mcpOptions) logger() (*log.Logger, func()) {
	path := o.debugLog
	if path == "" && o.debug {
		if dir, err := os.UserCacheDir(); err == nil {
			path = filepath.Join(dir, "dossier", "debug.log")
		}
	}
	if path == "" {
		return log.New(io.Discard, "", 0), func() {}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return log.New(io.Discard, "", 0), func() {}
	}
	// A FIFO or a device at the path is never waited on nor written to.
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return log.New(io.Discard, "", 0), func() {}
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		return log.New(io.Discard, "", 0), func() {}
	}
	return log.New(f, "dossier ", log.LstdFlags|log.Lmicroseconds), func() { f.Close() }
}
