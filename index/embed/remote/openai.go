// Package remote embeds through OpenAI-compatible endpoints (OpenAI,
// Ollama's /v1, vLLM, LM Studio). Linking it registers the client with
// embed.NewRemote; the one-shot dossier front links none.
package remote

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/dossierhq/dossier/index/embed"
)

func init() {
	embed.RegisterRemote(func(cfg embed.OpenAIConfig) (embed.Embedder, error) {
		o, err := NewOpenAI(cfg)
		if err != nil {
			return nil, err
		}
		return o, nil
	})
}

// OpenAI embeds texts through an OpenAI-compatible endpoint. It is safe for
// concurrent use.
type OpenAI struct {
	cfg    embed.OpenAIConfig
	url    string // the embeddings URL, password redacted, for messages
	key    string // kept only to scrub it from server messages
	client *openai.Client
	retry  *retrier
	dims   atomic.Int64 // configured, or learned from the first vector
}

var _ embed.Embedder = (*OpenAI)(nil)

// NewOpenAI checks cfg, fills in defaults and reads the API key from the
// environment once, so a missing key fails here rather than mid-index.
func NewOpenAI(cfg embed.OpenAIConfig) (*OpenAI, error) {
	cfg, u, err := checkOpenAIConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("openai embeddings config: %w", err)
	}
	var key string
	if cfg.APIKeyEnv != "" {
		v, ok := os.LookupEnv(cfg.APIKeyEnv)
		if !ok {
			return nil, fmt.Errorf("openai embeddings config: API key variable $%s is not set: export it, "+
				"or name no key variable for endpoints that need none (e.g. Ollama)", cfg.APIKeyEnv)
		}
		key = strings.TrimSpace(v)
	}

	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.Concurrency // keep one warm connection per worker
	r := &retrier{
		client:     &http.Client{Transport: tr},
		timeout:    cfg.Timeout,
		maxRetries: max(cfg.MaxRetries, 0),
		sleep:      sleepCtx,
		now:        time.Now,
	}
	cc := openai.DefaultConfig(key)
	cc.BaseURL = cfg.BaseURL
	cc.HTTPClient = r

	o := &OpenAI{
		cfg:    cfg,
		url:    u.Redacted() + "/embeddings",
		key:    key,
		client: openai.NewClientWithConfig(cc),
		retry:  r,
	}
	o.dims.Store(int64(cfg.Dimensions))
	return o, nil
}

func checkOpenAIConfig(cfg embed.OpenAIConfig) (embed.OpenAIConfig, *url.URL, error) {
	cfg.BaseURL = strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	cfg.Model = strings.TrimSpace(cfg.Model)
	cfg.APIKeyEnv = strings.TrimSpace(cfg.APIKeyEnv)
	if cfg.BaseURL == "" {
		return cfg, nil, errors.New("base URL is required, e.g. https://api.openai.com/v1 or http://localhost:11434/v1")
	}
	u, err := url.Parse(cfg.BaseURL)
	switch {
	case err != nil:
		// url.Error quotes the URL, password and all; the reason alone may
		// quote a piece of a password that holds a '/'.
		var ue *url.Error
		if errors.As(err, &ue) && !strings.Contains(cfg.BaseURL, "@") {
			return cfg, nil, fmt.Errorf("base URL is not a URL: %v", ue.Err)
		}
		return cfg, nil, errors.New("base URL is not a URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return cfg, nil, fmt.Errorf("base URL %s must start with http:// or https://", u.Redacted())
	case u.Host == "":
		return cfg, nil, fmt.Errorf("base URL %s has no host", u.Redacted())
	case u.User != nil:
		// Keys travel only in the Authorization header: a URL ends up in
		// messages and in the index's record of its model.
		u.User = nil
		return cfg, nil, fmt.Errorf("base URL %s has a user name or password in it: leave them out and put the key in the environment variable named by api_key_env", u)
	case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(cfg.BaseURL, "?"):
		// go-openai appends /embeddings to the string, which would land in the query.
		return cfg, nil, fmt.Errorf("base URL %s must not have a query or fragment", u.Redacted())
	case strings.HasSuffix(u.Path, "/embeddings"):
		root := *u
		root.Path = strings.TrimSuffix(u.Path, "/embeddings")
		return cfg, nil, fmt.Errorf("base URL %s ends in /embeddings: give the API root, %s", u.Redacted(), root.Redacted())
	}
	if cfg.Model == "" {
		return cfg, nil, errors.New("model is required")
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"dimensions", int64(cfg.Dimensions)},
		{"batch size", int64(cfg.BatchSize)},
		{"concurrency", int64(cfg.Concurrency)},
		{"timeout", int64(cfg.Timeout)},
	} {
		if f.v < 0 {
			return cfg, nil, fmt.Errorf("%s must not be negative", f.name)
		}
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = embed.DefaultBatchSize
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = embed.DefaultConcurrency
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = embed.DefaultMaxRetries
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = embed.DefaultTimeout
	}
	return cfg, u, nil
}

// Model returns the configured model name.
func (o *OpenAI) Model() string { return o.cfg.Model }

// Dims returns the configured dimensions, or the learned ones; 0 before the
// first successful call when none were configured.
func (o *OpenAI) Dims() int { return int(o.dims.Load()) }

// Probe embeds one short text, so a wrong URL, model, key or dimension
// fails (and unconfigured dimensions are learned) before a long run starts.
func (o *OpenAI) Probe(ctx context.Context) error {
	_, err := o.Embed(ctx, []string{"dossier probe"})
	return err
}

// Embed returns one unit vector per text, in input order, or an error and
// no vectors. Texts go out in batches of BatchSize, at most Concurrency at a
// time; the first failure cancels the batches still running.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	if len(texts) == 0 {
		return out, nil
	}
	work, cancel := context.WithCancel(ctx)
	defer cancel()

	var (
		once  sync.Once
		first error
		wg    sync.WaitGroup
	)
	starts := make(chan int)
	batches := (len(texts) + o.cfg.BatchSize - 1) / o.cfg.BatchSize
	for range min(o.cfg.Concurrency, batches) {
		wg.Go(func() {
			for lo := range starts {
				hi := min(lo+o.cfg.BatchSize, len(texts))
				if err := o.embedBatch(work, texts[lo:hi], out[lo:hi]); err != nil {
					once.Do(func() { first = err; cancel() })
				}
			}
		})
	}
feed:
	for lo := 0; lo < len(texts); lo += o.cfg.BatchSize {
		select {
		case starts <- lo:
		case <-work.Done():
			break feed
		}
	}
	close(starts)
	wg.Wait()

	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if first != nil {
		return nil, first
	}
	return out, nil
}

func (o *OpenAI) embedBatch(ctx context.Context, texts []string, out [][]float32) error {
	res, err := o.client.CreateEmbeddings(ctx, openai.EmbeddingRequestStrings{
		Input:          texts,
		Model:          openai.EmbeddingModel(o.cfg.Model),
		EncodingFormat: openai.EmbeddingEncodingFormatFloat,
		Dimensions:     o.cfg.Dimensions, // omitted from the JSON when 0
	})
	if err != nil {
		return o.explain(ctx, err)
	}
	return o.collect(res.Data, out)
}

// collect checks a batch's embeddings and places them by their index field:
// servers may answer out of order, and a bad answer must never become a
// silently wrong vector.
func (o *OpenAI) collect(data []openai.Embedding, out [][]float32) error {
	if len(data) != len(out) {
		return fmt.Errorf("embeddings endpoint %s returned %d embeddings for %d inputs (model %s)",
			o.url, len(data), len(out), o.cfg.Model)
	}
	for _, d := range data {
		i := d.Index
		if i < 0 || i >= len(out) {
			return fmt.Errorf("embeddings endpoint %s returned index %d for a batch of %d inputs (model %s)",
				o.url, i, len(out), o.cfg.Model)
		}
		if out[i] != nil {
			return fmt.Errorf("embeddings endpoint %s returned index %d twice in one batch (model %s)",
				o.url, i, o.cfg.Model)
		}
		if err := o.checkVector(d.Embedding); err != nil {
			return fmt.Errorf("embeddings endpoint %s, input %d of a batch: %w", o.url, i, err)
		}
		embed.Normalize(d.Embedding)
		out[i] = d.Embedding
	}
	return nil
}

func (o *OpenAI) checkVector(v []float32) error {
	if len(v) == 0 {
		return fmt.Errorf("empty vector for model %s", o.cfg.Model)
	}
	for j, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("non-finite value %v at component %d for model %s", x, j, o.cfg.Model)
		}
	}
	want := o.dims.Load()
	if want == 0 && !o.dims.CompareAndSwap(0, int64(len(v))) {
		want = o.dims.Load() // another batch learned first
	}
	switch {
	case want == 0 || int64(len(v)) == want:
		return nil
	case o.cfg.Dimensions > 0:
		return fmt.Errorf("endpoint returned %d-dimensional vectors for model %s, expected %d: set dimensions to %d",
			len(v), o.cfg.Model, want, len(v))
	default:
		return fmt.Errorf("endpoint returned %d-dimensional vectors for model %s after %d-dimensional ones: "+
			"the model behind the endpoint changed; re-index", len(v), o.cfg.Model, want)
	}
}

// explain turns a failed request into an error that says what to do. The
// retrier has already spent the retries.
func (o *OpenAI) explain(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ae *attemptError
	if !errors.As(err, &ae) {
		// The retrier only lets 2xx responses through, so this is go-openai decoding the body.
		return fmt.Errorf("embeddings endpoint %s returned malformed JSON for model %s: %v", o.url, o.cfg.Model, err)
	}
	// The transport's url.Error quotes the URL the message names already.
	cause := ae.err
	var ue *url.Error
	if errors.As(cause, &ue) {
		cause = ue.Err
	}
	msg := o.scrub(ae.message)
	tail := ""
	if msg != "" {
		tail = ": " + msg
	}
	switch {
	case ae.status == 0 && ae.timedOut:
		return fmt.Errorf("embeddings endpoint %s timed out after %s (%s each): "+
			"raise the timeout or lower the batch size", o.url, attempts(ae.attempts), o.cfg.Timeout)
	case ae.status == 0 && ae.attempts > 1:
		return fmt.Errorf("embeddings endpoint %s unreachable after %s: %w", o.url, attempts(ae.attempts), cause)
	case ae.status == 0:
		return fmt.Errorf("embeddings endpoint %s: %w", o.url, cause)
	case ae.status == http.StatusUnauthorized || ae.status == http.StatusForbidden:
		// The server's words are left out: OpenAI's echo part of the key.
		if o.cfg.APIKeyEnv == "" {
			return fmt.Errorf("embeddings endpoint %s requires an API key (HTTP %d): "+
				"name the environment variable that holds it", o.url, ae.status)
		}
		return fmt.Errorf("embeddings endpoint %s rejected the API key (HTTP %d): set $%s to a valid key",
			o.url, ae.status, o.cfg.APIKeyEnv)
	case ae.status == http.StatusNotFound:
		hint := ""
		if msg != "" {
			hint = " (server: " + msg + ")"
		}
		return fmt.Errorf("model %q or endpoint not found at %s (HTTP 404): check the base URL and model%s",
			o.cfg.Model, o.url, hint)
	case ae.retryable():
		return fmt.Errorf("embeddings endpoint %s failed after %s, last HTTP %d%s",
			o.url, attempts(ae.attempts), ae.status, tail)
	default:
		if msg == "" {
			msg = http.StatusText(ae.status)
		}
		return fmt.Errorf("embeddings endpoint %s rejected the request for model %s (HTTP %d): %s",
			o.url, o.cfg.Model, ae.status, msg)
	}
}

// scrub keeps the key out of messages that quote the server.
func (o *OpenAI) scrub(s string) string {
	if o.key == "" {
		return s
	}
	return strings.ReplaceAll(s, o.key, "[redacted]")
}
