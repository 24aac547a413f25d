package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/cmd/internal/cli"
	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/store/config"
	"github.com/dossierhq/dossier/ui/termsafe"
)

type sendOptions struct {
	*globals
	api, model, followUp string
	maxOutputTokens      int
	json, dryRun         bool
}

func newSendCmd(g *globals) *cobra.Command {
	o := &sendOptions{globals: g}
	cmd := &cobra.Command{
		Use:   "send",
		Short: "Send the current flow to the LLM of config [llm] and stream the answer",
		Long: "Assemble the current flow as seed 000 lays it out (system parts as instructions, one user\n" +
			"message: [MODE]+[INSTRUCTION], then the [CONTEXT] block), redacted as every exit is, post it\n" +
			"to the endpoint of config [llm] and stream the answer to stdout. Where it goes and how many\n" +
			"tokens is said on stderr before anything is sent; tokens, seconds and cost (when the\n" +
			"model's price is known) after.\n\n" +
			"Every turn is kept in the flow: turns/NNN.request.json (the body posted) and\n" +
			"turns/NNN.answer.md (a header, then the answer; edit it freely: a follow-up sends it as\n" +
			"you left it). --follow-up continues the conversation, with the earlier turns and the\n" +
			"flow's current context. Ctrl-C stops the answer and keeps what arrived, marked\n" +
			"incomplete. A send that fails before any text leaves the flow as it was.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd) },
	}
	f := cmd.Flags()
	f.StringVar(&o.api, "api", "", "responses or chat (default: config [llm] api, else responses)")
	f.StringVar(&o.model, "model", "", "the model to ask (default: config [llm] model)")
	f.StringVar(&o.followUp, "follow-up", "", "send TEXT as a follow-up turn (earlier turns go along)")
	f.IntVar(&o.maxOutputTokens, "max-output-tokens", 0, "cap the answer (default: config [llm] max_output_tokens, else the server's)")
	f.BoolVar(&o.json, "json", false, "stream nothing; print the kept turn as one JSON object at the end")
	f.BoolVar(&o.dryRun, "dry-run", false, "print the request body that would be posted, and send nothing")
	return cmd
}

func (o *sendOptions) run(cmd *cobra.Command) error {
	root, cfg, err := o.workspace()
	if err != nil {
		return err
	}
	l := cfg.LLM
	if o.model != "" {
		l.Model = o.model
	}
	if o.api != "" {
		if o.api != config.APIResponses && o.api != config.APIChat {
			return fmt.Errorf("%w: --api %q: use responses or chat", errUsage, o.api)
		}
		l.API = o.api
		if l.API == config.APIChat {
			l.ServerState = false // chat keeps nothing on the server
		}
	}
	if o.maxOutputTokens < 0 {
		return fmt.Errorf("%w: --max-output-tokens %d: give a token count, or 0 for the default", errUsage, o.maxOutputTokens)
	}
	if o.maxOutputTokens > 0 {
		l.MaxOutputTokens = o.maxOutputTokens
	}
	if o.followUp != "" && strings.TrimSpace(o.followUp) == "" {
		return fmt.Errorf("%w: --follow-up is blank: give the text to send", errUsage)
	}
	if err := l.Ready(); err != nil {
		return err
	}
	e := newEngine(root, cfg)
	e.LLM = llmConfig(l)
	stderr := cmd.ErrOrStderr()
	e.LLM.OnRetry = func(attempt int, wait time.Duration, err error) {
		fmt.Fprintf(stderr, "  ! %v; trying again in %s (retry %d)\n", err, wait.Round(100*time.Millisecond), attempt)
	}
	e.Stderr = stderr
	out, err := e.PrepareSend(evidence.SendOptions{FollowUp: o.followUp})
	if err != nil {
		return err
	}
	e.PrintSendSecrets(stderr, out)
	if o.dryRun {
		fmt.Fprintln(stderr, out.Announce()+" — dry run: nothing sent")
		_, err := cmd.OutOrStdout().Write(out.Body)
		return err
	}
	fmt.Fprintln(stderr, announce(out))
	stdout := cmd.OutOrStdout()
	_, tty := stdout.(*termsafe.Writer)
	var onDelta func(string)
	last := byte('\n')
	// A reader that goes away (`| head`) must not kill the process with
	// SIGPIPE: the answer is still read to its end and kept in the flow.
	signal.Ignore(syscall.SIGPIPE)
	var closed error
	if !o.json {
		onDelta = func(s string) {
			if closed != nil {
				return
			}
			if _, err := io.WriteString(stdout, s); err != nil {
				closed = err
			}
			if s != "" {
				last = s[len(s)-1]
			}
		}
	}
	turn, err := e.SendPrepared(cmd.Context(), out, onDelta)
	if closed != nil && turn.N > 0 {
		fmt.Fprintf(stderr, "dossier: stdout closed before the end of the answer (%v); the whole answer is kept in %s\n", closed, shortPath(root, turn.Answer))
	}
	if tty && last != '\n' {
		fmt.Fprintln(stdout) // the summary starts on its own line
	}
	where := shortPath(root, turn.Answer)
	stopped, code := "cancelled", exitInterrupted
	if s, ok := cli.StoppedBy(cmd.Context()); ok {
		stopped, code = s.Error(), s.ExitCode()
	}
	switch {
	case err != nil && turn.N > 0 && evidence.Cancelled(err):
		fmt.Fprintf(stderr, "dossier: %s; the partial answer is kept, marked incomplete, in %s\n", stopped, where)
		return errReported{code}
	case err != nil && turn.N > 0:
		fmt.Fprintln(stderr, "dossier:", err)
		fmt.Fprintf(stderr, "dossier: the partial answer is kept, marked incomplete, in %s\n", where)
		return errReported{exitError}
	case evidence.Cancelled(err):
		fmt.Fprintf(stderr, "dossier: %s before any answer arrived; the flow is as it was\n", stopped)
		return errReported{code}
	case err != nil:
		// Said here: a stall's error wraps a cancelled context, which is
		// not the user's interrupt.
		fmt.Fprintln(stderr, "dossier:", err)
		return errReported{exitError}
	}
	e.SaveCache()
	if o.json {
		return printTurnJSON(stdout, turn)
	}
	fmt.Fprintln(stderr, summary(turn, where))
	return nil
}

// announce is the line printed before a request leaves.
func announce(out *evidence.Outgoing) string {
	s := out.Announce()
	if !out.Loopback() {
		s += " · leaves this machine"
	}
	return s
}

// summary is the line after the answer:
// "─ 1,234 in · 567 out · 3.2 s · $0.0041 · turn 2 (.dossier/flows/.../turns/002.answer.md)".
func summary(t evidence.Turn, where string) string {
	var parts []string
	if t.HasUsage {
		parts = append(parts, evidence.Thousands(t.Usage.Input)+" in", evidence.Thousands(t.Usage.Output)+" out")
	} else {
		parts = append(parts, "the server reported no usage")
	}
	parts = append(parts, fmt.Sprintf("%.1f s", t.Seconds))
	if t.HasCost {
		parts = append(parts, evidence.Dollars(t.Cost))
	}
	if t.Status != send.StatusCompleted {
		s := t.Status
		if t.Reason != "" {
			s += " (" + t.Reason + ")"
		}
		parts = append(parts, s)
	}
	parts = append(parts, fmt.Sprintf("turn %d (%s)", t.N, where))
	return "─ " + strings.Join(parts, " · ")
}

// shortPath names a file relative to the workspace when it is inside.
func shortPath(root, p string) string {
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// turnJSON is `send --json`'s output.
type turnJSON struct {
	Turn       int     `json:"turn"`
	Request    string  `json:"request"`
	Answer     string  `json:"answer"`
	Text       string  `json:"text"`
	Model      string  `json:"model"`
	API        string  `json:"api"`
	Endpoint   string  `json:"endpoint"`
	ResponseID string  `json:"response_id,omitempty"`
	Status     string  `json:"status"`
	Reason     string  `json:"reason,omitempty"`
	Seconds    float64 `json:"seconds"`
	Usage      *struct {
		Input     int `json:"input"`
		Output    int `json:"output"`
		Cached    int `json:"cached"`
		Reasoning int `json:"reasoning"`
	} `json:"usage,omitempty"`
	CostUSD *float64 `json:"cost_usd,omitempty"`
}

func printTurnJSON(w io.Writer, t evidence.Turn) error {
	j := turnJSON{Turn: t.N, Request: t.Request, Answer: t.Answer, Text: t.Text, Model: t.Model, API: string(t.API), Endpoint: t.Endpoint,
		ResponseID: t.ResponseID, Status: t.Status, Reason: t.Reason, Seconds: t.Seconds}
	if t.HasUsage {
		j.Usage = &struct {
			Input     int `json:"input"`
			Output    int `json:"output"`
			Cached    int `json:"cached"`
			Reasoning int `json:"reasoning"`
		}{t.Usage.Input, t.Usage.Output, t.Usage.Cached, t.Usage.Reasoning}
	}
	if t.HasCost {
		j.CostUSD = &t.Cost
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(j)
}
