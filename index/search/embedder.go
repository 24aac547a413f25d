package search

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
)

// BuiltinModel describes the builtin embedder's vectors.
var BuiltinModel = store.VectorModel{Provider: store.ProviderBuiltin, Model: embed.BuiltinModel, Dims: embed.BuiltinDims}

// ModelOf is the vector model the settings c choose (c checked): the
// builtin one, or c's remote model as far as the settings name it (its
// dimensions are the endpoint's until a request says).
func ModelOf(c config.Embed) store.VectorModel {
	if c.Provider == "" || c.Provider == config.ProviderBuiltin {
		return BuiltinModel
	}
	return store.VectorModel{Provider: c.Provider, Model: c.Model, Dims: c.Dimensions, DimsRequested: c.Dimensions > 0,
		BaseURL: c.BaseURL, KeyEnv: c.APIKeyEnv}
}

// OpenAIConfig is the client configuration that reaches a recorded remote
// model's endpoint, with the limits the user's settings c give its
// requests (timeout, retries, batch size, concurrency). The indexer and
// the query embedder both build their client here, so a query obeys the
// same bounds as the indexing.
func OpenAIConfig(m store.VectorModel, c config.Embed) embed.OpenAIConfig {
	oc := embed.OpenAIConfig{BaseURL: m.BaseURL, Model: m.Model, APIKeyEnv: m.KeyEnv,
		BatchSize: c.BatchSize, Concurrency: c.Concurrency, MaxRetries: c.MaxRetries}
	if m.DimsRequested {
		oc.Dimensions = m.Dims
	}
	if c.Timeout != "" {
		// Checked by config.Embed.Check; an unparsable one keeps the default.
		if d, err := time.ParseDuration(c.Timeout); err == nil && d > 0 {
			oc.Timeout = d
		}
	}
	return oc
}

// indexModel is the model of the index's vectors: the recorded one, or the
// builtin one for an index whose first run has not finished yet.
func indexModel(tx *store.Tx) (store.VectorModel, error) {
	m, ok, err := tx.VectorModel()
	if err != nil {
		return m, fmt.Errorf("vector model of the index: %w (run `dossier index` to rebuild it)", err)
	}
	if !ok {
		return BuiltinModel, nil
	}
	return m, nil
}

// queryEmbedding is a query embedded by a remote model, made while the
// index file is closed (see SearchRoot): the vector, or why the endpoint
// gave none.
type queryEmbedding struct {
	model store.VectorModel
	vec   []float32
	err   error // an *EndpointError, or embed.ErrNoRemote
	// redacted are the rules of the secrets the query held, which the
	// endpoint was sent as markers.
	redacted []string
}

// redactedNote says which secrets of the query the endpoint was sent as
// markers; empty when none (or no query went out).
func (qe *queryEmbedding) redactedNote() string {
	if qe == nil || len(qe.redacted) == 0 {
		return ""
	}
	return fmt.Sprintf("the query holds a secret (%s): the embeddings endpoint was sent it as %s, and its vector is of the other words",
		strings.Join(qe.redacted, ", "), secrets.Marker(qe.redacted[0]))
}

// embedsRemotely reports whether q, at the index in tx, needs its query
// embedded by a remote endpoint, and the model it would be embedded with.
// A query that would be refused (another provider asked for, an endpoint
// the settings do not name) needs none: the search says why, without
// reaching the network.
func (e *Engine) embedsRemotely(tx *store.Tx, q Query) (store.VectorModel, bool) {
	if q.Mode != Hybrid && q.Mode != Vector {
		return store.VectorModel{}, false
	}
	m, err := indexModel(tx)
	if err != nil || m.Provider != store.ProviderOpenAI || (q.Embedder != "" && q.Embedder != m.Provider) {
		return m, false
	}
	_, ok := e.allowedFor(m)
	return m, ok
}

// embedQuery embeds text with the remote model m. It is called with no
// transaction open: the wait on the endpoint, bounded by the settings'
// timeout and retries and by ctx, holds nothing. It is the one place a
// query leaves the machine, so the secrets in it (a key pasted into the
// search box) are replaced by their markers here, as every other text
// that leaves is: the query is still searched, by its other words.
func (e *Engine) embedQuery(ctx context.Context, m store.VectorModel, text string) *queryEmbedding {
	qe := &queryEmbedding{model: m}
	fail := func(err error) *queryEmbedding {
		if ctx.Err() != nil {
			qe.err = ctx.Err()
		} else {
			qe.err = &EndpointError{Model: m, Err: err}
		}
		return qe
	}
	// The client's own errors name the endpoint; these two do not.
	at := "embeddings endpoint " + bareURL(m.BaseURL)
	c, err := e.remoteFor(m)
	if errors.Is(err, embed.ErrNoRemote) {
		// No fault of the endpoint's: this binary cannot reach one, and
		// the search fails with it (the one-shot front hands it on).
		qe.err = err
		return qe
	}
	if err != nil {
		return fail(fmt.Errorf("%s: %w", at, err))
	}
	sent, found := secrets.RedactString("", text)
	for _, f := range found {
		if !slices.Contains(qe.redacted, f.Rule) {
			qe.redacted = append(qe.redacted, f.Rule)
		}
	}
	vs, err := c.Embed(ctx, []string{sent})
	if err != nil {
		return fail(err)
	}
	if len(vs) != 1 || len(vs[0]) != m.Dims {
		return fail(fmt.Errorf("%s returned a vector of another size than the index's %d: re-index (`dossier index`)", at, m.Dims))
	}
	qe.vec = vs[0]
	return qe
}

// EndpointError is a query the remote embeddings endpoint did not embed:
// it was unreachable, timed out, refused the request or the key, or
// answered with something that is not a vector of the index's size. A
// hybrid search answers from text and symbols and says so in a note (see
// Debug.Warnings); a vector search fails with it.
type EndpointError struct {
	Model store.VectorModel
	Err   error // names the endpoint, never the key
}

func (e *EndpointError) Error() string { return "query not embedded: " + e.Err.Error() }

func (e *EndpointError) Unwrap() error { return e.Err }

// queryVector is the query's vector in the model of the index's vectors:
// the builtin one computed here, a remote one from qe. want, when not
// empty, is the provider the user asked for: a different one is refused
// rather than compared with vectors it cannot match.
func (v *view) queryVector(text, want string, qe *queryEmbedding) ([]float32, store.VectorModel, bool, error) {
	m, err := indexModel(v.tx)
	if err != nil {
		return nil, m, false, err
	}
	if want != "" && want != m.Provider {
		return nil, m, false, fmt.Errorf("the index's vectors come from %s, and a query embedded by %q cannot be compared with them: search without --embedder, or re-index with `dossier index --embedder %s`", m, want, want)
	}
	switch m.Provider {
	case store.ProviderBuiltin:
		if !m.Same(BuiltinModel) {
			return nil, m, false, fmt.Errorf("the index's vectors come from %s, this dossier embeds with %s: run `dossier index` to re-embed", m, BuiltinModel)
		}
		qv, ok, err := v.builtinQueryVector(text)
		return qv, m, ok, err
	case store.ProviderOpenAI:
		if _, ok := v.e.allowedFor(m); !ok {
			return nil, m, false, fmt.Errorf("%w: the index's vectors come from %s at %s with the key in $%s, "+
				"an endpoint your settings do not name: name it in your config's [embed] (or trust the workspace's, "+
				"`dossier trust`), or re-index with your embedder (`dossier index`)",
				ErrEndpointNotAllowed, m, bareURL(m.BaseURL), m.KeyEnv)
		}
		if qe == nil || qe.model != m {
			// SearchRoot embeds for the model it finds in the same transaction.
			return nil, m, false, fmt.Errorf("the query was not embedded with the index's model %s: search again", m)
		}
		if qe.err != nil {
			return nil, m, false, qe.err
		}
		return qe.vec, m, true, nil
	}
	return nil, m, false, fmt.Errorf("the index's vectors come from an unknown provider %q: run `dossier index` to re-embed", m.Provider)
}

// ErrEndpointNotAllowed is returned for a query on an index whose vectors
// came from a remote endpoint the engine was not allowed to reach (see
// Engine.AllowEndpoint): the query is not sent. A hybrid search leaves the
// vectors out with a note instead.
var ErrEndpointNotAllowed = errors.New("query not embedded")

// endpoint is a remote embeddings endpoint and the variable of its key.
type endpoint struct{ baseURL, keyEnv string }

func newEndpoint(baseURL, keyEnv string) endpoint {
	return endpoint{strings.TrimRight(strings.TrimSpace(baseURL), "/"), strings.TrimSpace(keyEnv)}
}

// AllowEndpoint lets the engine embed queries at the remote endpoint the
// user's settings c name (config [embed] base_url and api_key_env, from
// the user's own file or a trusted workspace), with the key in
// $api_key_env and c's timeout and retries. The index records the
// endpoint its vectors came from, and an index file copied or cloned from
// elsewhere must not send queries, or a key from the environment, to a
// host the user never chose: a query on an index of any other endpoint is
// not sent (ErrEndpointNotAllowed). Settings without a base URL allow
// nothing.
func (e *Engine) AllowEndpoint(c config.Embed) {
	if strings.TrimSpace(c.BaseURL) != "" {
		e.allowed = append(e.allowed, c)
	}
}

// allowedFor returns the settings that allow the endpoint of m.
func (e *Engine) allowedFor(m store.VectorModel) (config.Embed, bool) {
	want := newEndpoint(m.BaseURL, m.KeyEnv)
	for _, c := range e.allowed {
		if newEndpoint(c.BaseURL, c.APIKeyEnv) == want {
			return c, true
		}
	}
	return config.Embed{}, false
}

// bareURL is a URL for messages: without user name and password.
func bareURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(an unparsable URL)"
	}
	u.User = nil
	return u.String()
}

// remoteFor returns a client for a remote model, made once per Engine.
func (e *Engine) remoteFor(m store.VectorModel) (embed.Embedder, error) {
	if e.remote != nil && e.remoteModel == m {
		return e.remote, nil
	}
	c, _ := e.allowedFor(m)
	client, err := embed.NewRemote(OpenAIConfig(m, c))
	if err != nil {
		return nil, fmt.Errorf("the index's vectors come from %s: %w", m, err)
	}
	e.remote, e.remoteModel = client, m
	return client, nil
}
