package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/dossierhq/dossier/evidence"
)

type addIn struct {
	Selector string   `json:"selector,omitempty" jsonschema:"the evidence to add, relative to the workspace root: path, path::10,40, path::@Name or @Name (optionally #tag,tag), a folder (src/algo/) or a glob (src/**/*.ts) for one part per file; not needed for a system or user part"`
	Exclude  []string `json:"exclude,omitempty" jsonschema:"globs of files to leave out of a folder or glob selector, such as **/*_test.go"`
	Confirm  bool     `json:"confirm,omitempty" jsonschema:"add the files of a folder or glob when they are more than a handful; without it such a call only lists them with their tokens"`
	Outline  bool     `json:"outline,omitempty" jsonschema:"add the parts as outlines (signatures only, as evidence_fit degrades them), for a set that does not fit the budget whole"`
	Rank     string   `json:"rank,omitempty" jsonschema:"rank (file order, lower is more important): a number such as 150, or a band: critical (100s), supporting, peripheral, optional (default: the next free rank of the evidence band)"`
	Role     string   `json:"role,omitempty" jsonschema:"evidence (default), system or user"`
	Text     string   `json:"text,omitempty" jsonschema:"the text of a system or user part"`
}

type idIn struct {
	ID string `json:"id" jsonschema:"a part: its file stem (300_example), its rank (300), a rank range (300-399) or e3 (the third evidence part)"`
}

type toggleIn struct {
	ID    string `json:"id" jsonschema:"a part: its file stem (300_example), its rank (300), a rank range (300-399) or e3"`
	State string `json:"state,omitempty" jsonschema:"on or off; empty flips one part"`
}

type focusIn struct {
	Query string `json:"query" jsonschema:"keep active the evidence relevant to this and skip the rest; \"off\" restores every part"`
}

type fitIn struct {
	Tokens string `json:"tokens,omitempty" jsonschema:"bring the prompt under this many tokens (32000, 32k); default the flow's budget; \"off\" undoes fitting"`
}

type flowNewIn struct {
	Name    string `json:"name" jsonschema:"a short name for the task, e.g. fix-parser (the flow's id is NAME-<UTC time>)"`
	Request string `json:"request,omitempty" jsonschema:"the user's request, written as the flow's first user part"`
	Mode    string `json:"mode,omitempty" jsonschema:"the task mode: fix, test, refactor, explain, ..."`
}

type flowUseIn struct {
	ID string `json:"id" jsonschema:"the flow's id, as flow_new returned it (a directory name under .dossier/flows)"`
}

type askIn struct {
	Question string `json:"question" jsonschema:"what evidence covers X, what is missing for X, or what evidence is redundant"`
}

type emptyIn struct{}

// commandOut is the structured result of an engine command: what it
// printed, as the CLI prints it.
type commandOut struct {
	Output string `json:"output"`
}

func (s *Server) addFlowTools() {
	change := &sdk.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	addTool(s, &sdk.Tool{Name: "evidence_add", Annotations: change,
		Description: "Add evidence to the current flow (starting a flow when there is none): a file, a range or a definition, " +
			"as a ranked part, or a folder or glob as one part per file (more than a handful are listed with their tokens first: " +
			"call again with confirm true to add them). A human in dossier's workbench sees it at once. Use role system or user with text for instructions."},
		s.evidenceAdd)
	addTool(s, &sdk.Tool{Name: "evidence_status", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		Description: "List the current flow's parts: rank, role, active or skipped, tokens, source; stale parts are marked."},
		func(ctx context.Context, _ emptyIn) (string, any, error) { return s.status(ctx) })
	addTool(s, &sdk.Tool{Name: "evidence_toggle", Annotations: change,
		Description: "Turn parts of the current flow on or off (a skipped part stays in the flow but not in the prompt)."},
		func(ctx context.Context, in toggleIn) (string, any, error) {
			words := []string{"evidence", "toggle"}
			switch in.State {
			case "":
			case "on", "off":
				words = append(words, in.State)
			default:
				return "", nil, fmt.Errorf("state %q: use on, off, or leave it out to flip one part", in.State)
			}
			return s.exec(ctx, words, in.ID)
		})
	addTool(s, &sdk.Tool{Name: "evidence_remove", Annotations: &sdk.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
		Description: "Remove parts from the current flow (moved to the flow's build/removed/, so a human can restore them)."},
		func(ctx context.Context, in idIn) (string, any, error) {
			return s.exec(ctx, []string{"evidence", "remove"}, in.ID)
		})
	addTool(s, &sdk.Tool{Name: "evidence_focus", Annotations: change,
		Description: "Keep the evidence relevant to a query active and skip the rest (system, user and pinned parts stay); \"off\" restores."},
		func(ctx context.Context, in focusIn) (string, any, error) {
			return s.exec(ctx, []string{"evidence", "focus"}, in.Query)
		})
	addTool(s, &sdk.Tool{Name: "evidence_fit", Annotations: change,
		Description: "Bring the prompt under the budget, lowest-priority rank band first: full text, then an outline, then a " +
			"one-line mention, then skipped. System, user and pinned parts are never touched; \"off\" undoes it."},
		func(ctx context.Context, in fitIn) (string, any, error) {
			if in.Tokens == "" {
				return s.exec(ctx, []string{"evidence", "fit"})
			}
			return s.exec(ctx, []string{"evidence", "fit"}, in.Tokens)
		})
	addTool(s, &sdk.Tool{Name: "flow_new", Annotations: change,
		Description: "Start a flow (a directory of ranked prompt parts) for a task and make it current; evidence_add then adds to it."},
		func(ctx context.Context, in flowNewIn) (string, any, error) {
			words := []string{"flow", "new"}
			if in.Request != "" {
				words = append(words, "--request="+in.Request)
			}
			if in.Mode != "" {
				words = append(words, "--mode="+in.Mode)
			}
			return s.exec(ctx, words, in.Name)
		})
	addTool(s, &sdk.Tool{Name: "flow_use", Annotations: change,
		Description: "Make another flow of the workspace current (the workbench follows it)."},
		func(ctx context.Context, in flowUseIn) (string, any, error) {
			return s.exec(ctx, []string{"flow", "use"}, in.ID)
		})
	addTool(s, &sdk.Tool{Name: "ask", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
		Description: "Ask about the current flow, answered from the index without an LLM: \"what evidence covers X\", " +
			"\"what is missing for X\" (index hits not in the flow), \"what evidence is redundant\"."},
		func(ctx context.Context, in askIn) (string, any, error) {
			return s.exec(ctx, []string{"ask"}, in.Question)
		})
}

func (s *Server) evidenceAdd(ctx context.Context, in addIn) (string, any, error) {
	words := []string{"evidence", "add"}
	if in.Rank != "" {
		if _, err := strconv.Atoi(in.Rank); err == nil {
			words = append(words, "--rank="+in.Rank)
		} else {
			words = append(words, "--band="+in.Rank)
		}
	}
	if in.Role != "" {
		words = append(words, "--role="+in.Role)
	}
	if in.Text != "" {
		words = append(words, "--text="+in.Text)
	}
	if in.Selector == "" {
		if in.Text == "" {
			return "", nil, errors.New("give a selector (path, path::10,40, path::@Name or @Name), or a role and text for a system or user part")
		}
		return s.exec(ctx, words)
	}
	sel, err := s.confineSelector(in.Selector)
	if err != nil {
		return "", nil, err
	}
	if in.Confirm {
		words = append(words, "--yes")
	}
	if in.Outline {
		words = append(words, "--outline")
	}
	positional := []string{sel.String()}
	for _, x := range in.Exclude {
		positional = append(positional, "!"+strings.TrimPrefix(x, "!"))
	}
	text, err := s.run(ctx, words, positional...)
	var ce *evidence.ConfirmError
	if errors.As(err, &ce) {
		// The list is the answer: the agent (or its user) decides.
		text += fmt.Sprintf("Nothing added yet: call evidence_add again with the same arguments and confirm: true to add these %d files.\n", ce.Files)
		return text, commandOut{Output: text}, nil
	}
	return s.result(text, err)
}

// status is `evidence status`: its text for the model and its --json
// object as the structured result.
func (s *Server) status(ctx context.Context) (string, any, error) {
	text, _, err := s.exec(ctx, []string{"evidence", "status"})
	if err != nil {
		return "", nil, err
	}
	js, _, err := s.exec(ctx, []string{"evidence", "status", "--json"})
	if err != nil {
		return "", nil, err
	}
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		return "", nil, fmt.Errorf("evidence status --json: %w", err)
	}
	return text, v, nil
}

// exec runs one command line of the evidence engine, the one the CLI and
// the workbench run, on the flow as it is on disk now (a human may have
// changed it since the last call). Positional words come after "--", so
// a client's value is never taken for a flag.
func (s *Server) exec(ctx context.Context, words []string, positional ...string) (string, any, error) {
	return s.result(s.run(ctx, words, positional...))
}

// run is exec's command: what it printed (warnings after) and its error
// as the engine returned it.
func (s *Server) run(ctx context.Context, words []string, positional ...string) (string, error) {
	for _, p := range positional {
		if strings.TrimSpace(p) == "" {
			return "", fmt.Errorf("%s: an argument is empty", strings.Join(words, " "))
		}
	}
	if len(positional) > 0 {
		words = append(append(words, "--"), positional...)
	}
	e := s.opts.Engine
	e.Reload()
	var out, warn bytes.Buffer
	e.Stderr = &warn
	defer func() { e.Stderr = nil }()
	err := e.Exec(ctx, words, &out)
	text := out.String()
	if warn.Len() > 0 {
		text += warn.String()
	}
	return text, err
}

// result is a tool's answer from a command's output and error.
func (s *Server) result(text string, err error) (string, any, error) {
	var ue *evidence.UsageError
	if errors.As(err, &ue) && ue.Usage != "" {
		// The CLI's synopsis names flags a tool does not take.
		err = errors.New(ue.Msg)
	}
	if err != nil {
		if text != "" {
			return "", nil, fmt.Errorf("%s\n%s", s.noFlow(err), text)
		}
		return "", nil, s.noFlow(err)
	}
	return text, commandOut{Output: text}, nil
}
