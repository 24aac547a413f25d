// Package config reads dossier's settings: built-in defaults, then the user
// file ($XDG_CONFIG_HOME/dossier/config.toml), then the workspace file
// (<root>/.dossier.toml); flags override all three.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/fsafe"
)

// FileName is the workspace config file at the root of a workspace.
const FileName = ".dossier.toml"

// Config is every setting dossier reads from files.
type Config struct {
	Index Index `toml:"index"`
	Embed Embed `toml:"embed"`
	// Store is the shared index (see store/shared.go).
	Store Store `toml:"store"`
	// LLM is the endpoint flows are sent to: see llm.go.
	LLM    LLM    `toml:"llm"`
	Prompt Prompt `toml:"prompt"`
	UI     UI     `toml:"ui"`
	// Secrets decides what exits do with the secrets they find.
	Secrets Secrets `toml:"secrets"`
	// Evidence: see evidence.go.
	Evidence Evidence `toml:"evidence"`

	// Notices are lines for the user about how the files were read (the
	// ignored settings of an untrusted workspace); a command prints them
	// on stderr.
	Notices []string `toml:"-"`
}

// Secrets decides what exits do with secrets.
type Secrets struct {
	// Allow sends secrets as they are from every exit (assembled prompts,
	// copies, exports); by default they are replaced by
	// [REDACTED:<rule-id>]. A workspace's file sets it only once trusted.
	Allow bool `toml:"allow"`
}

// UI sets up the workbench.
type UI struct {
	// Theme is auto (follows the terminal's background), dark, light or
	// high-contrast; --theme overrides it.
	Theme string `toml:"theme"`
	// ConfirmSend, when false, has the workbench send (S, /send,
	// /followup) without asking first; unset is true. A send to an
	// endpoint on this machine never asks (see evidence.Outgoing.Loopback).
	ConfirmSend *bool `toml:"confirm_send"`
}

// Confirm reports whether a workbench send asks first ([ui]
// confirm_send, true unless set to false).
func (u UI) Confirm() bool { return u.ConfirmSend == nil || *u.ConfirmSend }

// Prompt sets what new flows are assembled for; a flow's own settings
// (`dossier flow set`) win.
type Prompt struct {
	// Model picks the tokenizer and the default budget ("gpt-4o",
	// "claude-sonnet-4", ...); empty is gpt-4o.
	Model string `toml:"model"`
	// Budget is the token limit; 0 is about 40% of the model's window.
	Budget int `toml:"budget"`
	// Format is the default of `dossier assemble`: mdctx, aptix,
	// responses or pack.
	Format string `toml:"format"`
}

// Store names a shared index on a team's Postgres: `dossier index
// --store` publishes to it, and a workspace it indexed reads it.
type Store struct {
	// URL is postgres://[user@]host[:port]/db[?sslmode=...], as libpq
	// spells it, never with a password.
	URL string `toml:"url"`
	// PasswordEnv names the variable that holds the password (else
	// PGPASSWORD or ~/.pgpass, as libpq reads them).
	PasswordEnv string `toml:"password_env"`
}

// Embed chooses the embedder that gives chunks their vectors.
type Embed struct {
	// Provider is "builtin" (offline, the default) or "openai" (any
	// OpenAI-compatible embeddings endpoint: OpenAI, Ollama's /v1, vLLM,
	// LM Studio).
	Provider string `toml:"provider"`
	// BaseURL is the API root, e.g. https://api.openai.com/v1.
	BaseURL string `toml:"base_url"`
	Model   string `toml:"model"`
	// Dimensions, when set, is sent with each request and checked on
	// every vector; 0 takes the model's own size.
	Dimensions int `toml:"dimensions"`
	// APIKeyEnv names the environment variable holding the API key (the
	// key itself never goes in a file); empty for endpoints without one.
	APIKeyEnv   string `toml:"api_key_env"`
	BatchSize   int    `toml:"batch_size"`
	Concurrency int    `toml:"concurrency"`
	// MaxRetries is how often a request that failed for a passing reason
	// (429, 5xx, a timeout) is tried again: 0 is the default (5), -1 never.
	MaxRetries int `toml:"max_retries"`
	// Timeout bounds each request, as a Go duration ("60s").
	Timeout string `toml:"timeout"`
}

// Embedder providers.
const (
	ProviderBuiltin = store.ProviderBuiltin
	ProviderOpenAI  = store.ProviderOpenAI
)

// Check reports the first setting of e that cannot work.
func (e Embed) Check() error {
	switch e.Provider {
	case "", ProviderBuiltin:
		return nil
	case ProviderOpenAI:
	default:
		return fmt.Errorf("config: embed.provider %q: use %q or %q", e.Provider, ProviderBuiltin, ProviderOpenAI)
	}
	if err := CheckEndpoint(e.BaseURL); err != nil {
		return fmt.Errorf("config: embed.base_url %w", err)
	}
	if e.BaseURL == "" || e.Model == "" {
		return fmt.Errorf("config: embed.provider = %q needs embed.base_url and embed.model (e.g. base_url = \"https://api.openai.com/v1\", model = \"text-embedding-3-small\")", e.Provider)
	}
	if e.MaxRetries < -1 {
		return fmt.Errorf("config: embed.max_retries %d: give -1 (never retry), 0 (the default, 5) or more", e.MaxRetries)
	}
	if e.Dimensions < 0 || e.BatchSize < 0 || e.Concurrency < 0 {
		return fmt.Errorf("config: embed.dimensions, batch_size and concurrency must be 0 (the default) or more")
	}
	if e.Timeout != "" {
		if d, err := time.ParseDuration(e.Timeout); err != nil || d <= 0 {
			return fmt.Errorf("config: embed.timeout %q: give a positive duration such as \"60s\"", e.Timeout)
		}
	}
	return nil
}

// Index configures discovery and indexing.
type Index struct {
	// MaxFileSize skips larger files (bytes).
	MaxFileSize int64 `toml:"max_file_size"`
	// Workers is the number of parallel file processors; 0 means one per core.
	Workers int `toml:"workers"`
	// Exclude adds ignore patterns (.gitignore syntax) relative to the root.
	Exclude []string `toml:"exclude"`
	// HistoryDepth is how many of the latest commits that touched each
	// file are indexed as file_change chunks; 0 turns history off.
	HistoryDepth int `toml:"history_depth"`
	// HistoryCommits bounds the commits read for it (the newest ones).
	HistoryCommits int `toml:"history_commits"`
	// IncludeRunSummaries indexes the answers `dossier send` kept as
	// run_summary chunks (seed 002's include_run_summaries).
	IncludeRunSummaries bool `toml:"include_run_summaries"`
}

// Defaults of the history settings.
const (
	DefaultHistoryDepth   = 3
	DefaultHistoryCommits = 100
)

// Default returns the built-in settings.
func Default() Config {
	return Config{Index: Index{MaxFileSize: 1 << 20, HistoryDepth: DefaultHistoryDepth, HistoryCommits: DefaultHistoryCommits,
		IncludeRunSummaries: true}}
}

// Load returns the settings for a workspace root. A missing file is fine; a
// malformed one is an error that names the file and the problem. The
// workspace file's gated settings (GatedKeys) apply only when the user
// trusts the workspace; otherwise they are ignored and Notices says so.
func Load(root string) (Config, error) {
	c, _, err := load(root, false)
	return c, err
}

// Files are the files Load(root) reads, whether they exist or not: the
// user file, the workspace file and the trust file that decides which of
// the workspace's settings apply. A program that keeps running (the
// workbench) watches them to read the settings again.
func Files(root string) []string {
	files := []string{filepath.Join(root, FileName)}
	if dir, err := os.UserConfigDir(); err == nil {
		files = append(files, filepath.Join(dir, "dossier", "config.toml"), filepath.Join(dir, "dossier", TrustFileName))
	}
	return files
}

// load merges the files; asTrusted applies the workspace's gated settings
// whatever the trust file says (to check them before they are trusted).
func load(root string, asTrusted bool) (Config, Workspace, error) {
	c := Default()
	w := Workspace{Root: canonical(root), File: filepath.Join(root, FileName)}
	if dir, err := os.UserConfigDir(); err == nil {
		if _, err := merge(&c, filepath.Join(dir, "dossier", "config.toml")); err != nil {
			return c, w, err
		}
	}
	before := c
	if err := ownFile(root, w.File); err != nil {
		return c, w, err
	}
	doc, err := merge(&c, w.File)
	if err != nil {
		return c, w, err
	}
	w.Settings = gatedIn(doc)
	w.state()
	if w.State != Trusted && w.State != NothingToTrust && !asTrusted {
		restore(&c, &before, w.Settings)
		c.Notices = append(c.Notices, w.Notice())
	}
	return c, w, c.check()
}

// ownFile refuses a workspace config that is a symlink out of the
// workspace: its lines could end up quoted in an error.
func ownFile(root, file string) error {
	st, err := os.Lstat(file)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return nil // a dangling link reads as no file
	}
	rroot, err := filepath.EvalSymlinks(root)
	if rel, rerr := filepath.Rel(rroot, real); err != nil || rerr != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("config %s is a symlink out of the workspace: dossier reads only the workspace's own file; replace the link with a file", file)
	}
	return nil
}

// check reports the first setting of c that cannot work.
func (c Config) check() error {
	if c.Index.MaxFileSize <= 0 {
		return fmt.Errorf("config: index.max_file_size must be positive, got %d", c.Index.MaxFileSize)
	}
	if c.Index.Workers < 0 {
		return fmt.Errorf("config: index.workers must be 0 (one per core) or more, got %d", c.Index.Workers)
	}
	if c.Index.HistoryDepth < 0 {
		return fmt.Errorf("config: index.history_depth must be 0 (no history) or a number of commits per file, got %d", c.Index.HistoryDepth)
	}
	if c.Index.HistoryCommits < 1 {
		return fmt.Errorf("config: index.history_commits must be a positive number of commits to read, got %d", c.Index.HistoryCommits)
	}
	switch c.Prompt.Format {
	case "", "mdctx", "aptix", "responses", "pack":
	default:
		return fmt.Errorf("config: prompt.format %q: use mdctx, aptix, responses or pack", c.Prompt.Format)
	}
	if c.Prompt.Budget < 0 {
		return fmt.Errorf("config: prompt.budget must be 0 (from the model) or a token count, got %d", c.Prompt.Budget)
	}
	if err := c.Evidence.Check(); err != nil {
		return err
	}
	if err := c.LLM.Check(); err != nil {
		return err
	}
	return c.Embed.Check()
}

// merge decodes the file at path over c and returns what it holds as a
// generic document (nil for a missing file).
func merge(c *Config, path string) (doc map[string]any, err error) {
	data, err := fsafe.ReadFile(path, maxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, err)
	}
	defer func() {
		// go-toml 2.2.4 panicked on a quoted key holding an escape: whatever
		// the decoder does with a hostile file, it is this file's error.
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("config %s: the TOML decoder failed on this file (%v): check its syntax, and please report it", path, r)
		}
	}()
	if err := toml.Unmarshal(data, &doc); err == nil {
		// Gated settings are found by their exact names, so the decoder's
		// tolerance of other spellings must not let one through.
		if err := exactNames(path, doc); err != nil {
			return nil, err
		}
	}
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(c); err != nil {
		return nil, decodeError(path, err)
	}
	if doc == nil {
		return nil, fmt.Errorf("config %s: not a TOML document", path)
	}
	return doc, checkURLs(path, doc)
}

// decodeError names the file, line and column of what the decoder refused,
// and for an unknown setting its name. It quotes neither the file's lines
// (de.String() does: for a symlinked config they may be anyone's secrets)
// nor a key as written: a quoted key may hold escapes ("a\u001b") that
// would reach the terminal raw.
func decodeError(path string, err error) error {
	// StrictMissingError unwraps to DecodeErrors, so it is asked first.
	var sm *toml.StrictMissingError
	if errors.As(err, &sm) && len(sm.Errors) > 0 {
		e := &sm.Errors[0]
		row, col := e.Position()
		more := ""
		if n := len(sm.Errors) - 1; n > 0 {
			more = fmt.Sprintf(" (and %d more)", n)
		}
		return fmt.Errorf("config %s:%d:%d: unknown setting %s%s: remove it or check its spelling", path, row, col, keyName(e.Key()), more)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		return fmt.Errorf("config %s:%d:%d: %s", path, row, col, de.Error())
	}
	return fmt.Errorf("config %s: %w", path, err)
}

// keyName spells a dotted key as TOML would, quoting a part that is not a
// bare key, with Go's escapes for what is not printable.
func keyName(k toml.Key) string {
	parts := make([]string, len(k))
	for i, p := range k {
		parts[i] = p
		if p == "" || strings.IndexFunc(p, notBare) >= 0 {
			parts[i] = strconv.Quote(p)
		}
	}
	return strings.Join(parts, ".")
}

func notBare(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
}

// maxConfigFile bounds a config file: a settings file is a few KB.
const maxConfigFile = 1 << 20

// exactNames refuses a section or key spelled in another case than
// dossier's ([Embed], Base_URL): the decoder would take it, and the trust
// gate would not see it.
func exactNames(path string, doc map[string]any) error {
	top := reflect.TypeOf(Config{})
	for name, v := range doc {
		sec, ok := fieldByTag(top, name)
		if !ok {
			if want, ok := foldTag(top, name); ok {
				return fmt.Errorf("config %s: [%s]: write it [%s] (dossier's settings are lower case)", path, name, want)
			}
			continue // unknown: the decoder's error names it
		}
		tbl, ok := v.(map[string]any)
		if !ok || sec.Kind() != reflect.Struct {
			continue
		}
		for key := range tbl {
			if _, ok := fieldByTag(sec, key); ok {
				continue
			}
			if want, ok := foldTag(sec, key); ok {
				return fmt.Errorf("config %s: [%s] %s: write it %s (dossier's settings are lower case)", path, name, key, want)
			}
		}
	}
	return nil
}

// fieldByTag is the type of t's field tagged name, exactly.
func fieldByTag(t reflect.Type, name string) (reflect.Type, bool) {
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ","); tag == name {
			return t.Field(i).Type, true
		}
	}
	return nil, false
}

// foldTag is the tag of t's field that name spells in another case, as
// the decoder compares names (strings.ToLower: İ is i) or by Unicode folding
// (the Kelvin sign is k).
func foldTag(t reflect.Type, name string) (string, bool) {
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if tag != "-" && (strings.EqualFold(tag, name) || strings.ToLower(name) == tag) {
			return tag, true
		}
	}
	return "", false
}
