package evidence

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/store/fsafe"
)

// LLMConfig is the engine's endpoint for Send: config [llm] and the
// command's flags. The key is read from the variable APIKeyEnv names when
// a request is sent, never before and never kept.
type LLMConfig struct {
	send.Config
	// APIKeyEnv names the variable holding the API key; "" sends none.
	APIKeyEnv string
	// Price overrides dossier's price table (config input_price and
	// output_price); nil uses send.PriceOf.
	Price *send.Price
}

// SendOptions says what to send.
type SendOptions struct {
	// FollowUp is the text of a follow-up turn; "" sends the flow's
	// request (as turn 1, or as a new turn after earlier ones).
	FollowUp string
}

// Outgoing is a request ready to post: what Send would send, for a
// front-end to announce (or print, for a dry run) before it goes.
type Outgoing struct {
	// N is the number the turn is kept under (a concurrent send may move
	// it on by one).
	N        int
	FollowUp bool
	Request  send.Request
	// Body is the JSON that is posted, redacted, indented: what
	// NNN.request.json keeps.
	Body []byte
	// Endpoint is where it goes (no credentials: config refuses them).
	Endpoint string
	Model    string
	API      send.API
	// Tokens counts what the model reads (instructions, history, the new
	// message) with the flow's tokenizer; the server's count may differ a
	// little.
	Tokens int
	// Earlier is how many earlier turns go along (as messages, or as
	// previous_response_id alone with server state).
	Earlier     int
	ServerState bool
	// Redactions are the secrets replaced in what goes (or sent as they
	// are with [secrets] allow).
	Redactions []assemble.Redaction
	// Cost is what the Tokens cost the model's input side, in USD, as
	// InputCost says it before anything is sent (the answer adds its
	// output); HasCost is false when the price is not known.
	Cost    float64
	HasCost bool

	cfg     send.Config
	flowDir string
}

// ErrNoRequest means there is nothing to ask: the flow has no active user
// request and no follow-up was given.
var ErrNoRequest = errors.New("the flow has no request to send: write one with `dossier flow new NAME --request \"...\"`, " +
	"`dossier evidence add --role user --text \"...\"` or the workbench's /request, or pass --follow-up \"...\"")

// PrepareSend assembles the current flow as Send would, without sending:
// the request with its history and its body. Nothing is written.
func (e *Engine) PrepareSend(o SendOptions) (*Outgoing, error) {
	cfg := e.LLM.Config
	if err := e.llmReady(); err != nil {
		return nil, err
	}
	f, err := e.Flow()
	if err != nil {
		return nil, err
	}
	turns, err := f.Turns()
	if err != nil {
		return nil, err
	}
	x, err := e.exchange(f, o.FollowUp)
	if err != nil {
		return nil, err
	}
	history, hidden := e.redactHistory(turns, send.Endpoint(cfg))
	req := send.Request{Instructions: x.Instructions, Instruction: x.Instruction, Context: x.Context, History: history}
	body, err := send.Body(cfg, req)
	if err != nil {
		return nil, fmt.Errorf("send: build the request: %w", err)
	}
	out := &Outgoing{
		N: nextTurn(filepath.Join(f.Dir, turnsDir)), FollowUp: o.FollowUp != "", Request: req, Body: body,
		Endpoint: send.Endpoint(cfg), Model: cfg.Model, API: apiOf(cfg), Earlier: len(turns), Redactions: append(x.Redactions, hidden...),
		cfg: cfg, flowDir: f.Dir,
	}
	out.ServerState = cfg.ServerState && apiOf(cfg) == send.Responses && len(history) > 0 && history[len(history)-1].ResponseID != ""
	out.Tokens = x.Tokens
	if !out.ServerState {
		a, err := e.assembler()
		if err != nil {
			return nil, err
		}
		for _, h := range req.History {
			out.Tokens += a.Count(h.Instruction) + a.Count(h.Answer)
		}
	}
	out.Cost, _, _, out.HasCost = e.InputCost(out.Tokens)
	return out, nil
}

// llmReady checks that an endpoint and a model are set.
func (e *Engine) llmReady() error {
	if strings.TrimSpace(e.LLM.BaseURL) == "" || e.LLM.Model == "" {
		return ErrNoLLM
	}
	return nil
}

// ErrNoLLM means no endpoint or model is configured; the CLI adds the
// config snippets.
var ErrNoLLM = errors.New("no LLM endpoint configured: set base_url and model in [llm]")

// Send assembles the current flow (redacted as every exit is), builds the
// request with earlier turns as history, streams it (onDelta gets the
// text as it arrives) and keeps the turn in FLOW/turns/. It announces
// where it sends on Stderr first. Cancelled: the partial answer is kept,
// marked incomplete, and the error is context.Canceled. Failed before any
// text: the flow is left as it was.
func (e *Engine) Send(ctx context.Context, o SendOptions, onDelta func(string)) (Turn, error) {
	out, err := e.PrepareSend(o)
	if err != nil {
		return Turn{}, err
	}
	if e.Stderr != nil {
		e.PrintSendSecrets(e.Stderr, out)
		if f, err := e.Flow(); err == nil {
			e.printDrift(e.Stderr, f)
		}
		fmt.Fprintln(e.Stderr, out.Announce())
	}
	return e.SendPrepared(ctx, out, onDelta)
}

// PrintSendSecrets warns of the secrets in what out sends, part by part,
// as the other exits do.
func (e *Engine) PrintSendSecrets(w io.Writer, out *Outgoing) {
	e.printSecrets(w, assemble.Result{Redactions: out.Redactions}, nil)
}

// Announce is the line that says where a request goes before it goes:
// "→ POST https://api.openai.com/v1/responses · gpt-4o-mini · 1,234 tokens · turn 2 (1 earlier)".
func (out *Outgoing) Announce() string {
	s := fmt.Sprintf("→ POST %s · %s · %s tokens · turn %d", out.Endpoint, out.Model, Thousands(out.Tokens), out.N)
	switch {
	case out.ServerState:
		s += " (continues the server's conversation: previous_response_id)"
	case out.Earlier == 1:
		s += " (1 earlier turn resent)"
	case out.Earlier > 1:
		s += fmt.Sprintf(" (%d earlier turns resent)", out.Earlier)
	}
	return s
}

// SendPrepared posts out and keeps the turn; see Send. It reads only
// e.LLM, e.Getenv and e.Now of the engine, so a front-end may run it off
// the goroutine that runs the engine's other commands.
func (e *Engine) SendPrepared(ctx context.Context, out *Outgoing, onDelta func(string)) (Turn, error) {
	cfg := out.cfg
	if e.LLM.APIKeyEnv != "" {
		cfg.APIKey = e.Getenv(e.LLM.APIKeyEnv)
		if cfg.APIKey == "" {
			return Turn{}, fmt.Errorf("send: the API key variable %s is not set (or empty): export it, or change [llm] api_key_env (leave it out for a server that needs no key)", e.LLM.APIKeyEnv)
		}
	}
	// An answer that could not be kept would be paid for and lost: turns/
	// must take it before anything is sent.
	turns := filepath.Join(out.flowDir, turnsDir)
	fsafe.Sweep(turns)
	if err := probeDir(turns); err != nil {
		return Turn{}, fmt.Errorf("send: nothing was sent, the answer could not be kept: %w", err)
	}
	started := e.Now()
	res, err := send.Stream(ctx, cfg, out.Request, onDelta)
	if res.Text == "" {
		// Nothing arrived: the flow stays as it was.
		if err == nil {
			err = fmt.Errorf("send: %s: the answer was empty (%s)%s", out.Endpoint, statusWords(res), emptyHint(res))
		}
		return Turn{}, err
	}
	// Text arrived: keep it, marked incomplete when the stream did not
	// finish, so what the user saw is never lost.
	status, reason := res.Status, res.Reason
	switch {
	case Cancelled(err):
		status, reason = "incomplete", "cancelled"
	case err != nil:
		status, reason = "incomplete", failReason(err)
	case status == "":
		status = "completed"
	}
	m := turnMeta{
		Time: started, Model: firstNonEmpty(res.Model, cfg.Model), API: string(apiOf(cfg)), Endpoint: firstNonEmpty(res.Endpoint, out.Endpoint),
		ResponseID: res.ResponseID, In: res.Usage.Input, Out: res.Usage.Output, Cached: res.Usage.Cached, Reasoning: res.Usage.Reasoning,
		HasUsage: res.HasUsage, Seconds: res.Elapsed.Seconds(), Status: status, Reason: reason, RetriesTaken: res.Retries,
	}
	if m.Seconds == 0 {
		m.Seconds = e.Now().Sub(started).Seconds()
	}
	if p, ok := e.price(cfg.Model, res.Model); ok && res.HasUsage {
		m.Cost, m.HasCost = p.Cost(res.Usage), true
	}
	dir := filepath.Join(out.flowDir, turnsDir)
	n, werr := keepTurn(dir, out.N, out.Body, func(n int) string {
		m.N = n
		return renderAnswer(m, res.Text)
	})
	if werr != nil {
		return Turn{Text: res.Text}, errors.Join(&NotKeptError{Chars: len(res.Text), Err: werr}, err)
	}
	t := Turn{N: n, Request: filepath.Join(dir, turnName(n, "request.json")), Answer: filepath.Join(dir, turnName(n, "answer.md")),
		Instruction: out.Request.Instruction, Text: res.Text, Model: m.Model, API: apiOf(cfg), Endpoint: m.Endpoint, ResponseID: m.ResponseID,
		Usage: res.Usage, HasUsage: res.HasUsage, Cost: m.Cost, HasCost: m.HasCost, Seconds: m.Seconds, Status: status, Reason: reason, Time: started}
	return t, err
}

// NotKeptError is an answer that arrived but could not be written to the
// flow (a full disk, a read-only turns/): never reported as a cancel.
type NotKeptError struct {
	Chars int
	Err   error
}

func (e *NotKeptError) Error() string {
	return fmt.Sprintf("the answer arrived (%d bytes) but could not be kept: %v", e.Chars, e.Err)
}

func (e *NotKeptError) Unwrap() error { return e.Err }

// Cancelled reports whether err is the caller's cancellation (Ctrl-C,
// Esc) and nothing else: a stall or a timeout is a *send.Error, whatever
// context it cancelled inside, and an answer that could not be kept is a
// *NotKeptError.
func Cancelled(err error) bool {
	var se *send.Error
	var nk *NotKeptError
	return err != nil && !errors.As(err, &se) && !errors.As(err, &nk) && errors.Is(err, context.Canceled)
}

// InputCost is what sending tokens of context to the configured model
// costs, in USD, before anything is sent: the input side of the price
// (config input_price, else dossier's table for the [llm] model, else for
// the flow's model). ok is false when the price is not known (a local
// model): no cost is shown then, rather than a guess.
func (e *Engine) InputCost(tokens int) (usd float64, model string, p send.Price, ok bool) {
	model = e.LLM.Model
	if model == "" {
		if prof, err := e.Profile(); err == nil {
			model = prof.Model
		}
	}
	p, ok = e.price(model)
	if !ok {
		return 0, model, p, false
	}
	return p.Cost(send.Usage{Input: tokens}), model, p, true
}

// CostWord renders InputCost for a total line: "~$0.0123".
func CostWord(usd float64) string {
	if usd < 0.01 {
		return fmt.Sprintf("~$%.4f", usd)
	}
	return fmt.Sprintf("~$%.2f", usd)
}

// price is the model's price: the config's, else the table's for the
// model asked for or the one the server named.
func (e *Engine) price(models ...string) (send.Price, bool) {
	if e.LLM.Price != nil {
		return *e.LLM.Price, true
	}
	for _, m := range models {
		if p, ok := send.PriceOf(m); ok && m != "" {
			return p, true
		}
	}
	return send.Price{}, false
}

// failReason is an incomplete turn's reason for an error after text
// arrived: the kind of failure and the server's words.
func failReason(err error) string {
	var se *send.Error
	if errors.As(err, &se) {
		if se.Message != "" {
			return "error: " + string(se.Kind) + ": " + se.Message
		}
		return "error: " + string(se.Kind)
	}
	return "error: " + err.Error()
}

func statusWords(res send.Result) string {
	s := firstNonEmpty(res.Status, "no status")
	if res.Reason != "" {
		s += ": " + res.Reason
	}
	return s
}

func emptyHint(res send.Result) string {
	if strings.Contains(res.Reason, "max_output_tokens") || strings.Contains(res.Reason, "length") {
		return "; nothing kept: raise [llm] max_output_tokens (or --max-output-tokens), a reasoning model may spend them all before it writes"
	}
	return "; nothing kept"
}

func apiOf(cfg send.Config) send.API {
	if cfg.API == "" {
		return send.Responses
	}
	return cfg.API
}

// Loopback reports whether the endpoint stays on this machine: its host
// is localhost or a loopback address (127.0.0.0/8, ::1), the hosts Go's
// HTTP client never sends through a proxy. A name that merely resolves to
// one is not trusted to (the check reads the URL, not DNS), nor a name
// under .localhost: HTTP_PROXY would carry it off the machine. (send
// speaks HTTP over TCP only, so there is no unix socket to count.)
func (out *Outgoing) Loopback() bool {
	u, err := url.Parse(out.Endpoint)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// Thousands writes n with commas: 1,234,567.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + Thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
