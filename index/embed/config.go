package embed

import (
	"errors"
	"time"
)

// OpenAIConfig configures an OpenAI-compatible embeddings endpoint: OpenAI
// itself, Ollama's /v1, vLLM and LM Studio all answer POST {BaseURL}/embeddings.
type OpenAIConfig struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1 or
	// http://localhost:11434/v1 (required).
	BaseURL string
	// Model names the embedding model (required).
	Model string
	// Dimensions, when positive, is sent as the request's dimensions field
	// and every vector must have that length. When 0 nothing is sent and the
	// length of the first vector returned is adopted and enforced afterwards.
	Dimensions int
	// APIKeyEnv names the environment variable holding the API key. Empty
	// means the endpoint needs no key (Ollama); a variable that is set but
	// empty sends none either; a variable that is not set is an error.
	APIKeyEnv string
	// BatchSize is the number of texts per request (default 100).
	BatchSize int
	// Concurrency bounds the requests in flight (default 4).
	Concurrency int
	// MaxRetries is how many times a request is retried after HTTP 408,
	// 429 or 5xx, a timeout or a connection error (default 5; negative
	// means never).
	MaxRetries int
	// Timeout bounds one attempt, response body included (default 60s).
	Timeout time.Duration
}

// Defaults for the zero fields of OpenAIConfig.
const (
	DefaultBatchSize   = 100
	DefaultConcurrency = 4
	DefaultMaxRetries  = 5
	DefaultTimeout     = 60 * time.Second
)

// ErrNoRemote is NewRemote's error in a binary that links no client of
// remote endpoints: the one-shot dossier front, which hands a command
// that needs one to the full binary.
var ErrNoRemote = errors.New("this binary embeds with no remote endpoint")

var newRemote func(OpenAIConfig) (Embedder, error)

// RegisterRemote makes f the client of remote endpoints that NewRemote
// returns. Package remote registers its OpenAI-compatible client when it
// is linked, as every binary that indexes links it.
func RegisterRemote(f func(OpenAIConfig) (Embedder, error)) { newRemote = f }

// NewRemote returns a client of the OpenAI-compatible endpoint cfg names,
// or ErrNoRemote.
func NewRemote(cfg OpenAIConfig) (Embedder, error) {
	if newRemote == nil {
		return nil, ErrNoRemote
	}
	return newRemote(cfg)
}
