package store

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Embedder providers.
const (
	ProviderBuiltin = "builtin"
	ProviderOpenAI  = "openai"
)

// VectorModel names the embedder whose vectors an index holds. Queries
// must be embedded by the same model, and indexing with another one
// re-embeds everything.
type VectorModel struct {
	Provider string `json:"provider"` // "builtin" or "openai"
	Model    string `json:"model"`
	Dims     int    `json:"dims"`
	// DimsRequested is set when Dims is sent with each request (a model
	// that can shorten its vectors), not the model's own size.
	DimsRequested bool `json:"dims_requested,omitempty"`
	// BaseURL and KeyEnv (the name of the environment variable holding
	// the API key, never the key) let a query reach the same endpoint.
	BaseURL string `json:"base_url,omitempty"`
	KeyEnv  string `json:"api_key_env,omitempty"`
}

// String names the model for messages: provider, model and dimensions.
func (m VectorModel) String() string {
	return fmt.Sprintf("%s %q (%d dimensions)", m.Provider, m.Model, m.Dims)
}

// Same reports whether two models give the same vectors.
func (m VectorModel) Same(o VectorModel) bool {
	return m.Provider == o.Provider && m.Model == o.Model && m.Dims == o.Dims
}

// VectorModel returns the model of the index's vectors; false when none
// was recorded (an empty index, or one never finished).
func (t *Tx) VectorModel() (VectorModel, bool, error) {
	var m VectorModel
	ok, err := getJSON(t.r(bucketMeta), metaVectors, &m)
	return m, ok, err
}

// SetVectorModel records the model of the index's vectors.
func (t *Tx) SetVectorModel(m VectorModel) error { return putJSON(t.b(bucketMeta), metaVectors, m) }

// embKey is model \x00 dims (uint32, big endian) \x00 hash.
func embKey(model string, dims int, hash []byte) []byte {
	k := append([]byte(model), 0)
	k = binary.BigEndian.AppendUint32(k, uint32(dims))
	return append(append(k, 0), hash...)
}

// Embedding returns the cached embedding of a text by its hash under a
// model; nil when there is none. Valid until the transaction ends.
func (t *Tx) Embedding(model string, dims int, hash []byte) []byte {
	return t.r(bucketEmbCache).Get(embKey(model, dims, hash))
}

// PutEmbedding caches the embedding of a text by its hash under a model.
// The value must not change until the transaction commits.
func (t *Tx) PutEmbedding(model string, dims int, hash, v []byte) error {
	if strings.IndexByte(model, 0) >= 0 || model == "" {
		return fmt.Errorf("embedding cache: model name %q is empty or holds a NUL byte", model)
	}
	return t.b(bucketEmbCache).Put(embKey(model, dims, hash), v)
}

// SetVectors gives a file update its vector record after encoding (an
// embedder that runs later than the rest, such as a remote one).
func (e *Encoded) SetVectors(rec []byte) { e.vectors = seal(rec) }

// Key names the model in a shared store: provider/model/dimensions.
func (m VectorModel) Key() string { return fmt.Sprintf("%s/%s/%d", m.Provider, m.Model, m.Dims) }

// MetaVectorNull is the meta key of a shared snapshot's vector moments
// (see index/search's sharedNull).
var MetaVectorNull = []byte("vecnull")

// Shared reports whether t reads a shared store's snapshot.
func (t *Tx) Shared() bool { return t.shared != nil }

// Nearest asks the shared snapshot's server for the k chunks nearest q
// (see Remote.Nearest); ok is false for a local index and for a server
// that has no vectors.
func (t *Tx) Nearest(model string, q []float32, k int, prefix string) ([]VectorHit, bool, error) {
	if t.shared == nil {
		return nil, false, nil
	}
	return t.shared.remote.Nearest(t.shared.ctx, model, q, k, prefix)
}

// SharedMeta returns key of a shared snapshot's meta bucket (nil for a
// local index).
func (t *Tx) SharedMeta(key []byte) []byte {
	if t.shared == nil {
		return nil
	}
	return t.r(bucketMeta).Get(key)
}
