package search

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/dossierhq/dossier/index/embed"
	"github.com/dossierhq/dossier/store"
)

// BuiltinModel describes the builtin embedder's vectors.
var BuiltinModel = store.VectorModel{Provider: store.ProviderBuiltin, Model: embed.BuiltinModel, Dims: embed.BuiltinDims}

// OpenAIConfig is the client configuration that reaches a recorded remote
// model's endpoint.
func OpenAIConfig(m store.VectorModel) embed.OpenAIConfig {
	c := embed.OpenAIConfig{BaseURL: m.BaseURL, Model: m.Model, APIKeyEnv: m.KeyEnv}
	if m.DimsRequested {
		c.Dimensions = m.Dims
	}
	return c
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

// queryVector embeds a query with the model of the index's vectors. want,
// when not empty, is the provider the user asked for: a different one is
// refused rather than compared with vectors it cannot match.
func (v *view) queryVector(ctx context.Context, text, want string) ([]float32, store.VectorModel, bool, error) {
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
		if !v.e.allows(m) {
			return nil, m, false, fmt.Errorf("%w: the index's vectors come from %s at %s with the key in $%s, "+
				"an endpoint your settings do not name: name it in your config's [embed] (or trust the workspace's, "+
				"`dossier trust`), or re-index with your embedder (`dossier index`)",
				ErrEndpointNotAllowed, m, bareURL(m.BaseURL), m.KeyEnv)
		}
		e, err := v.e.remoteFor(m)
		if err != nil {
			return nil, m, false, err
		}
		vs, err := e.Embed(ctx, []string{text})
		if err != nil {
			return nil, m, false, fmt.Errorf("embedding the query with %s: %w", m, err)
		}
		if len(vs) != 1 || len(vs[0]) != m.Dims {
			return nil, m, false, fmt.Errorf("embedding the query with %s: got a vector of another size than the index's %d", m, m.Dims)
		}
		return vs[0], m, true, nil
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

// AllowEndpoint lets the engine embed queries at a remote endpoint with
// the key in $keyEnv: the one the user's settings name (config [embed]
// base_url and api_key_env, from the user's own file or a trusted
// workspace). The index records the endpoint its vectors came from, and
// an index file copied or cloned from elsewhere must not send queries,
// or a key from the environment, to a host the user never chose: a query
// on an index of any other endpoint is not sent (ErrEndpointNotAllowed).
func (e *Engine) AllowEndpoint(baseURL, keyEnv string) {
	e.allowed = append(e.allowed, newEndpoint(baseURL, keyEnv))
}

func (e *Engine) allows(m store.VectorModel) bool {
	return slices.Contains(e.allowed, newEndpoint(m.BaseURL, m.KeyEnv))
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
	c, err := embed.NewOpenAI(OpenAIConfig(m))
	if err != nil {
		return nil, fmt.Errorf("the index's vectors come from %s: %w", m, err)
	}
	e.remote, e.remoteModel = c, m
	return c, nil
}
