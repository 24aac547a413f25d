package mcp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence"
)

// Resource URIs of the current flow.
const (
	PromptURI = "dossier://flow/prompt.mdctx"
	PlanURI   = "dossier://flow/ctxplan.json"
)

// addResources serves the current flow's assembled prompt and its plan,
// as `assemble` and `evidence plan` make them, without writing build/.
func (s *Server) addResources() {
	s.srv.AddResource(&sdk.Resource{URI: PromptURI, Name: "prompt", Title: "The current flow's prompt", MIMEType: "text/markdown",
		Description: "The current flow's active evidence assembled into one prompt (mdctx), secrets redacted."},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return s.resource(req.Params.URI, "text/markdown", func(res assemble.Result, _ *assemble.Flow, _ int) string { return res.Text })
		})
	s.srv.AddResource(&sdk.Resource{URI: PlanURI, Name: "ctxplan", Title: "The current flow's plan", MIMEType: "application/json",
		Description: "ctxplan.json of the current flow: every part with its rank, state, tokens and source, and the totals against the budget."},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return s.resource(req.Params.URI, "application/json", func(res assemble.Result, snap *assemble.Flow, budget int) string {
				return string(assemble.NewPlan(snap, res, budget).JSON())
			})
		})
}

func (s *Server) resource(uri, mime string, render func(assemble.Result, *assemble.Flow, int) string) (*sdk.ReadResourceResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.opts.Engine
	e.Reload()
	res, snap, err := e.Assemble(assemble.MDCtx)
	if err != nil {
		return nil, fmt.Errorf("%s: %s", uri, redact(s.noFlow(err).Error()))
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: mime, Text: redact(render(res, snap, e.Budget()))}}}, nil
}

// recipes are the task prompts: evidence gather's strategies.
var recipes = []struct{ name, what string }{
	{"fix", "Fix a bug in TARGET: gathers it, the symbols it imports, its callees and its tests."},
	{"test", "Write or fix tests for TARGET: gathers it, its tests and its callees."},
	{"refactor", "Refactor TARGET: gathers it, its imports, importers, callers and tests."},
	{"explain", "Explain TARGET: gathers it, its callees and its imports."},
}

// addPrompts serves the task recipes: each gathers the evidence its
// strategy lists for a target into a scratch flow (as `dossier evidence
// gather` does into FLOW_DIR), removed after, and returns its assembled
// prompt: the current flow is left as it is. A read-only server has
// none all the same: gathering writes a flow directory.
func (s *Server) addPrompts() {
	if s.opts.ReadOnly {
		return
	}
	for _, r := range recipes {
		mode := r.name
		s.srv.AddPrompt(&sdk.Prompt{Name: mode, Title: strings.ToUpper(mode[:1]) + mode[1:], Description: r.what + " The current flow is left as it is.",
			Arguments: []*sdk.PromptArgument{
				{Name: "target", Required: true, Description: "a file, range or symbol relative to the workspace root: path, path::10,40 or path::@Name"},
				{Name: "request", Description: "what you want done, added to the prompt as the request"},
			}},
			func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				return s.recipe(ctx, mode, req.Params.Arguments["target"], req.Params.Arguments["request"])
			})
	}
}

func (s *Server) recipe(ctx context.Context, mode, target, request string) (*sdk.GetPromptResult, error) {
	if strings.TrimSpace(target) == "" {
		return nil, fmt.Errorf("prompt %s needs a target: path, path::10,40 or path::@Name", mode)
	}
	sel, err := s.confineSelector(target)
	if err != nil {
		return nil, fmt.Errorf("prompt %s: %s", mode, redact(err.Error()))
	}
	target = sel.String()
	s.mu.Lock()
	defer s.mu.Unlock()
	// Fetching a prompt is a read: the recipe gathers into a scratch flow,
	// removed after, and the current flow is left as it was.
	done, err := s.scratchFlow(mode)
	if err != nil {
		return nil, fmt.Errorf("prompt %s: %s", mode, redact(err.Error()))
	}
	defer done()
	gathered, _, err := s.exec(ctx, []string{"evidence", "gather", mode}, target)
	if err != nil {
		return nil, fmt.Errorf("prompt %s: %s", mode, redact(err.Error()))
	}
	res, _, err := s.opts.Engine.Assemble(assemble.MDCtx)
	if err != nil {
		return nil, fmt.Errorf("prompt %s: %s", mode, redact(err.Error()))
	}
	text := res.Text
	if request = strings.TrimSpace(request); request != "" {
		text += "\n\n" + request + "\n"
	}
	return &sdk.GetPromptResult{Description: redact(strings.TrimSpace(gathered)),
		Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: redact(text)}}}}, nil
}

// scratchFlow points the engine at a new, empty flow in a temporary
// directory (as FLOW_DIR would) until done is called, which points it
// back and removes the directory. s.mu is held.
func (s *Server) scratchFlow(name string) (done func(), err error) {
	dir, err := os.MkdirTemp("", "dossier-prompt-")
	if err != nil {
		return nil, err
	}
	for _, sub := range []string{filepath.Join("ctx", "evidence"), "build"} { // as evidence.Create makes them
		if err := os.MkdirAll(filepath.Join(dir, sub), evidence.DirMode); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	f := &evidence.Flow{Dir: dir, Meta: evidence.Meta{ID: "prompt-" + name, Name: name, Created: s.opts.Engine.Now().UTC().Truncate(time.Second)}}
	// The prompt is fitted and counted as the current flow would be: its
	// model (the tokenizer), budget and format carry over; without a flow
	// the engine's, from the config, apply.
	s.opts.Engine.Reload()
	cur, err := s.opts.Engine.Flow()
	switch {
	case err == nil:
		f.Meta.Model, f.Meta.Budget, f.Meta.Format = cur.Meta.Model, cur.Meta.Budget, cur.Meta.Format
	case !errors.Is(err, evidence.ErrNoFlow):
		os.RemoveAll(dir)
		return nil, err
	}
	if err := f.SaveMeta(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	e := s.opts.Engine
	getenv := e.Getenv
	e.Getenv = func(k string) string {
		if k == evidence.FlowDirEnv {
			return dir
		}
		if getenv == nil {
			return os.Getenv(k)
		}
		return getenv(k)
	}
	e.Reload()
	return func() {
		e.Getenv = getenv
		e.Reload()
		os.RemoveAll(dir)
	}, nil
}
