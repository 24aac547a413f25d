package config

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LLM is the endpoint `dossier send` and the workbench's /send post the
// assembled flow to: any OpenAI-compatible server (OpenAI, Ollama, vLLM,
// LM Studio, llama.cpp's server). Unset (no base_url) means nothing is
// ever sent; `dossier send` then says how to set it.
type LLM struct {
	// BaseURL is the API root, e.g. https://api.openai.com/v1 or
	// http://localhost:11434/v1.
	BaseURL string `toml:"base_url"`
	// Model is the model named in every request.
	Model string `toml:"model"`
	// APIKeyEnv names the environment variable holding the API key, read
	// when a request is sent; the key itself never goes in a file. Empty
	// for servers without one (a local Ollama).
	APIKeyEnv string `toml:"api_key_env"`
	// API is "responses" (POST {base}/responses, the default) or "chat"
	// (POST {base}/chat/completions, which every local server speaks).
	API string `toml:"api"`
	// MaxOutputTokens caps the answer; 0 is the server's default.
	MaxOutputTokens int `toml:"max_output_tokens"`
	// Temperature, when set, is sent with each request (0 to 2).
	Temperature *float64 `toml:"temperature"`
	// Timeout is the longest wait for the first byte and between two
	// events of the stream, as a Go duration ("120s", the default).
	Timeout string `toml:"timeout"`
	// MaxRetries is how often a request refused for a passing reason
	// (429, 5xx, a refused connection) is tried again before any answer
	// arrived: 0 is the default (3), -1 never.
	MaxRetries int `toml:"max_retries"`
	// ServerState chains follow-ups with previous_response_id (the
	// server keeps the conversation, store: true) instead of sending the
	// earlier turns again. Responses API only.
	ServerState bool `toml:"server_state"`
	// InputPrice and OutputPrice are what the model costs in USD per
	// million tokens, for models dossier's table does not know (or to
	// correct it); both or neither.
	InputPrice  *float64 `toml:"input_price"`
	OutputPrice *float64 `toml:"output_price"`
}

// LLM APIs.
const (
	APIResponses = "responses"
	APIChat      = "chat"
)

// Configured reports whether an endpoint is set at all.
func (l LLM) Configured() bool { return strings.TrimSpace(l.BaseURL) != "" }

// envName is what a variable name looks like (`^[A-Za-z_][A-Za-z0-9_]*$`,
// checked without a regexp compiled at every process's start); anything
// else in api_key_env is most likely the key itself.
var envName = envNameMatcher{}

type envNameMatcher struct{}

func (envNameMatcher) MatchString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

// Check reports the first setting of l that cannot work. A section that
// sets no base_url is not an error here (commands that never send must
// not fail for it); Ready says what a send needs.
func (l LLM) Check() error {
	if err := CheckEndpoint(l.BaseURL); err != nil {
		return fmt.Errorf("config: llm.base_url %w", err)
	}
	if b := strings.TrimSpace(l.BaseURL); b != "" {
		u, _ := url.Parse(b)
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("config: llm.base_url %q: give the API root with http:// or https:// and a host, such as \"https://api.openai.com/v1\" or \"http://localhost:11434/v1\"", b)
		}
	}
	switch l.API {
	case "", APIResponses, APIChat:
	default:
		return fmt.Errorf("config: llm.api %q: use %q (POST /responses, the default) or %q (POST /chat/completions, which every local server speaks)", l.API, APIResponses, APIChat)
	}
	if l.APIKeyEnv != "" && !envName.MatchString(l.APIKeyEnv) {
		// Never quote it: it may be the key itself.
		return fmt.Errorf("config: llm.api_key_env is not an environment variable's name: give the name of the variable that holds the key (api_key_env = \"OPENAI_API_KEY\"), never the key itself")
	}
	if l.MaxOutputTokens < 0 {
		return fmt.Errorf("config: llm.max_output_tokens %d: give 0 (the server's default) or a token count", l.MaxOutputTokens)
	}
	if t := l.Temperature; t != nil && (*t < 0 || *t > 2) {
		return fmt.Errorf("config: llm.temperature %g: give a number from 0 to 2, or leave it out for the server's default", *t)
	}
	if l.Timeout != "" {
		if d, err := time.ParseDuration(l.Timeout); err != nil || d <= 0 {
			return fmt.Errorf("config: llm.timeout %q: give a positive Go duration such as \"120s\" or \"5m\"", l.Timeout)
		}
	}
	if l.MaxRetries < -1 {
		return fmt.Errorf("config: llm.max_retries %d: give -1 (never retry), 0 (the default, 3) or more", l.MaxRetries)
	}
	if l.ServerState && l.API == APIChat {
		return fmt.Errorf("config: llm.server_state = true needs api = %q: chat completions keep no conversation on the server", APIResponses)
	}
	if (l.InputPrice == nil) != (l.OutputPrice == nil) {
		return fmt.Errorf("config: llm.input_price and llm.output_price go together: give both (USD per million tokens), or neither to use dossier's table")
	}
	for _, p := range []struct {
		key string
		v   *float64
	}{{"input_price", l.InputPrice}, {"output_price", l.OutputPrice}} {
		if p.v != nil && *p.v < 0 {
			return fmt.Errorf("config: llm.%s %g: give a price of 0 or more in USD per million tokens", p.key, *p.v)
		}
	}
	return nil
}

// Ready reports what a send still needs: an endpoint and a model. Its
// error carries config snippets for OpenAI and for a local Ollama.
func (l LLM) Ready() error {
	switch {
	case !l.Configured() && l.Model == "":
		return fmt.Errorf("no LLM endpoint: add an [llm] section to %s (your config) or to the workspace's %s:\n%s", userConfigHint(), FileName, LLMSnippets)
	case !l.Configured():
		return fmt.Errorf("[llm] sets model %q but no base_url: add the API root, e.g.\n%s", l.Model, LLMSnippets)
	case l.Model == "":
		return fmt.Errorf("[llm] base_url %s names no model: add model = \"...\" to [llm] (or pass --model), e.g.\n%s", l.BaseURL, LLMSnippets)
	}
	return nil
}

// LLMSnippets are [llm] sections that work, for the messages that ask
// the user to write one.
const LLMSnippets = `  # OpenAI
  [llm]
  base_url = "https://api.openai.com/v1"
  model = "gpt-4o-mini"
  api_key_env = "OPENAI_API_KEY"

  # Ollama on this machine (no key)
  [llm]
  base_url = "http://localhost:11434/v1"
  model = "qwen2.5-coder:7b"
  api = "chat"`

// userConfigHint names the user's config file for a message: the path
// load reads (os.UserConfigDir: $XDG_CONFIG_HOME, else ~/.config).
func userConfigHint() string {
	if dir, err := os.UserConfigDir(); err == nil {
		return filepath.Join(dir, "dossier", "config.toml")
	}
	return "$XDG_CONFIG_HOME/dossier/config.toml (~/.config/dossier/config.toml)"
}

// TimeoutDuration is Timeout parsed; 0 when unset (the sender's default).
// Check has refused one that does not parse.
func (l LLM) TimeoutDuration() time.Duration {
	d, err := time.ParseDuration(l.Timeout)
	if err != nil {
		return 0
	}
	return d
}
