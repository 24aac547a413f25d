// Package mcp serves dossier to coding agents over the Model Context
// Protocol: search, read and related on the index, and the flow commands
// of the evidence engine, as tools of one server built on the official Go
// SDK. It is a front-end like the CLI and the workbench: every tool calls
// the function the matching command calls, and every result passes the
// assemble package's redaction before it leaves.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/store"
)

// Options configure a server for one workspace.
type Options struct {
	// Root is the workspace root, absolute.
	Root string
	// Engine runs the flow commands; the server owns it from now on.
	Engine *evidence.Engine
	// Search answers queries; the server owns it from now on (it is not
	// safe for concurrent use: calls are serialized).
	Search *search.Engine
	// Embedder is the provider queries are embedded with (config [embed]
	// provider; empty follows the index).
	Embedder string
	// Index configures the indexer Keep runs; Root is set from Root.
	Index index.Options
	// ReadOnly leaves out every tool that changes a flow.
	ReadOnly bool
	// Log takes one line per request (nil logs nothing); Notice takes
	// what the user should hear (the index being built), never stdout.
	Log    *log.Logger
	Notice func(string)
	// Version is reported to clients.
	Version string
}

// Server is dossier's MCP server for one workspace.
type Server struct {
	opts Options
	srv  *sdk.Server
	// mu serializes the tools: the search and evidence engines keep
	// caches that are not safe for concurrent use.
	mu sync.Mutex
	// building is set while Keep builds a missing index.
	building atomic.Bool
}

// New builds the server with its tools, resources and prompts.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = log.New(io.Discard, "", 0)
	}
	if opts.Notice == nil {
		opts.Notice = func(string) {}
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	// Every exit redacts: an agent never gets a secret, whatever the
	// workspace's [secrets] allow says (that is for the user's own exits).
	opts.Engine.AllowSecrets = false
	opts.Engine.Stdin = strings.NewReader("")
	s := &Server{opts: opts}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "dossier", Title: "dossier", Version: opts.Version},
		&sdk.ServerOptions{Instructions: instructions})
	s.srv.AddReceivingMiddleware(s.logRequests, checkBounds)
	s.addQueryTools()
	if !opts.ReadOnly {
		s.addFlowTools()
	}
	s.addResources()
	s.addPrompts()
	return s
}

const instructions = "dossier indexes this workspace (code chunks, symbols, imports, tests, callers) and curates " +
	"evidence flows: ranked prompt parts that assemble into one prompt within a token budget. " +
	"Use search to find code, read to see a selector's text with line numbers, related for a file's or " +
	"symbol's imports, importers, tests, callers and callees. Selectors are workspace-relative: " +
	"path, path::10,40 (lines), path::@Symbol, or @Symbol. Secrets are shown as [REDACTED:<rule>]."

// SDK returns the underlying SDK server, to run on a transport.
func (s *Server) SDK() *sdk.Server { return s.srv }

// Run serves one client over t until it disconnects or ctx ends.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error { return s.srv.Run(ctx, t) }

// logRequests logs every request the server receives: its method, the
// tool or resource, how long it took and how it ended.
func (s *Server) logRequests(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		start := time.Now()
		res, err := next(ctx, method, req)
		what := ""
		switch p := req.GetParams().(type) {
		case *sdk.CallToolParamsRaw:
			what = " " + p.Name + " " + clip(string(p.Arguments), 300)
		case *sdk.ReadResourceParams:
			what = " " + p.URI
		case *sdk.GetPromptParams:
			what = " " + p.Name
		}
		status := "ok"
		switch {
		case err != nil:
			status = "error: " + err.Error()
		case isToolError(res):
			status = "tool error: " + clip(toolText(res), 300)
		}
		// The log is a file on disk too: what an agent sent or got back
		// is redacted there as well.
		s.opts.Log.Print(redact(fmt.Sprintf("mcp %s%s (%.1f ms) %s", method, what, float64(time.Since(start).Microseconds())/1000, status)))
		return res, err
	}
}

func isToolError(r sdk.Result) bool {
	ct, ok := r.(*sdk.CallToolResult)
	return ok && ct.IsError
}

func toolText(r sdk.Result) string {
	ct, ok := r.(*sdk.CallToolResult)
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, c := range ct.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", `\n`)
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// handler is what a tool does: the text for the model and the structured
// result (nil for none).
type handler[In any] func(ctx context.Context, in In) (text string, out any, err error)

// addTool registers a tool whose calls are serialized, whose results and
// errors are redacted, and whose structuredContent is out as JSON.
func addTool[In any](s *Server, t *sdk.Tool, h handler[In]) {
	sdk.AddTool(s.srv, t, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		text, out, err := h(ctx, in)
		if err != nil {
			return nil, nil, errors.New(redact(s.explain(err)))
		}
		res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: redact(text)}}}
		if out == nil {
			return res, nil, nil
		}
		v, err := redactJSON(out)
		if err != nil {
			return nil, nil, fmt.Errorf("encode the result: %w", err)
		}
		return res, v, nil
	})
}

// explain turns an index that is not there into what to do about it.
func (s *Server) explain(err error) string {
	if !errors.Is(err, store.ErrNoIndex) {
		return err.Error()
	}
	if strings.Contains(err.Error(), "being built") {
		return err.Error()
	}
	return fmt.Sprintf("%v: run `dossier index --root %s`, or restart `dossier mcp`, which builds it", err, s.opts.Root)
}

// ready refuses a call that needs the index while Keep builds a missing
// one: a half-built index would answer, wrongly, that nothing matches.
func (s *Server) ready() error {
	if s.building.Load() {
		return fmt.Errorf("%w: the index of %s is being built (dossier mcp started it): call again in a few seconds", store.ErrNoIndex, s.opts.Root)
	}
	return nil
}

// redact is the exit gate of every text a tool returns.
func redact(text string) string {
	out, _ := assemble.RedactText("mcp", text)
	return out
}

// redactJSON returns v as a JSON value with every string redacted.
func redactJSON(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(raw, &tree); err != nil {
		return nil, err
	}
	return redactTree(tree), nil
}

func redactTree(v any) any {
	switch x := v.(type) {
	case string:
		return redact(x)
	case []any:
		for i := range x {
			x[i] = redactTree(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = redactTree(x[k])
		}
	}
	return v
}

func ptr[T any](v T) *T { return &v }
