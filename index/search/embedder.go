package search

import (
	"context"
	"fmt"

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
		qv, ok := v.builtinQueryVector(text)
		return qv, m, ok, nil
	case store.ProviderOpenAI:
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
