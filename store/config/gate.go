package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
)

// GatedKey is a setting that sends data off the machine or picks a
// credential. The user's own config and flags set it freely; a
// workspace's .dossier.toml only once the user trusts that workspace
// (`dossier trust`), since a cloned repository must not be able to send
// its files, or a secret from the environment, to a host it names.
type GatedKey struct {
	Section string // the TOML table, e.g. "embed"
	Key     string // the key in it, e.g. "base_url"
	// Safe values send nothing anywhere and need no trust (a workspace
	// may always ask for the offline embedder).
	Safe []string
	// URL marks an endpoint: it must not carry a user name or password,
	// in any file, trusted or not.
	URL bool
	// Means is what the setting does, for `dossier trust` to show.
	Means string
}

// GatedKeys is every gated setting. A section is gated by listing its
// keys here: Load, the hash that trust is recorded under and `dossier
// trust` all follow this table.
//
// The embedder's model and dimensions are gated with its endpoint so that
// one trust level defines the whole endpoint: a workspace cannot pick a
// (costlier) model on the user's own account, nor combine its model with
// the user's endpoint into a setup neither of them wrote. The same holds
// for [llm]: its endpoint, key variable and model, and server_state,
// which has the server keep the whole conversation (store: true). Its
// prices, api, timeout and output cap send nothing and pick no
// credential, so a workspace sets them freely.
var GatedKeys = []GatedKey{
	{Section: "embed", Key: "provider", Safe: []string{ProviderBuiltin}, Means: "embed every chunk of the workspace remotely"},
	{Section: "embed", Key: "base_url", URL: true, Means: "the chunks and your queries are sent here"},
	{Section: "embed", Key: "api_key_env", Means: "this variable's value is sent there as the API key"},
	{Section: "embed", Key: "model"},
	{Section: "embed", Key: "dimensions"},
	{Section: "llm", Key: "base_url", URL: true, Means: "`dossier send` posts the assembled flow here"},
	{Section: "llm", Key: "api_key_env", Means: "this variable's value is sent there as the API key"},
	{Section: "llm", Key: "model"},
	{Section: "llm", Key: "server_state", Safe: []string{"false"}, Means: "the server keeps the conversation (store: true)"},
	// How long a send waits and retries on the user's account, and the
	// prices its cost is shown at, are the user's to say too: a cloned
	// repository must not make sends fail at once, retry for an hour, or
	// show a cost of $0.
	{Section: "llm", Key: "timeout"},
	{Section: "llm", Key: "max_retries"},
	{Section: "llm", Key: "input_price"},
	{Section: "llm", Key: "output_price"},
	// Whether a paid request asks first is the user's to say: a cloned
	// repository must not turn the question off.
	{Section: "ui", Key: "confirm_send", Safe: []string{"true"}, Means: "the workbench sends without asking first"},
	{Section: "secrets", Key: "allow", Safe: []string{"false"}, Means: "secrets leave unredacted"},
	{Section: "evidence", Key: "extra_roots", Means: "flows may read any file under these directories"},
	{Section: "store", Key: "url", URL: true, Means: "`dossier index --store` uploads the workspace's index (redacted text) here, and every reader queries it"},
	{Section: "store", Key: "password_env", Means: "this variable's value is sent there as the database password"},
}

// Setting is one gated setting a file sets.
type Setting struct {
	Section, Key string
	// Means is the GatedKey's.
	Means string
	// Value is the setting in TOML syntax, safe to print: a URL never
	// carries credentials (Load refuses those) and api_key_env names a
	// variable, never a key.
	Value string
}

// String is the setting as a config line, e.g. `[embed] base_url = "https://api.openai.com/v1"`.
func (s Setting) String() string { return fmt.Sprintf("[%s] %s = %s", s.Section, s.Key, s.Value) }

// gatedIn returns the gated settings a decoded file sets, in table order,
// leaving out safe values.
func gatedIn(doc map[string]any) []Setting {
	var out []Setting
	for _, g := range GatedKeys {
		sec, _ := doc[g.Section].(map[string]any)
		v, ok := sec[g.Key]
		if !ok {
			continue
		}
		if slices.Contains(g.Safe, fmt.Sprint(v)) {
			continue
		}
		b, err := json.Marshal(v) // TOML strings and integers read the same in JSON
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		out = append(out, Setting{Section: g.Section, Key: g.Key, Value: string(b), Means: g.Means})
	}
	return out
}

// hashSettings is the sha256 that trust is recorded under: the settings,
// one canonical line each, in table order.
func hashSettings(ss []Setting) string {
	h := sha256.New()
	for _, s := range ss {
		fmt.Fprintf(h, "%s.%s=%s\n", s.Section, s.Key, s.Value)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// restore sets the fields of the given settings in c back to their values
// in before: what the workspace file set is ignored.
func restore(c, before *Config, ss []Setting) {
	for _, s := range ss {
		dst, ok1 := field(c, s.Section, s.Key)
		src, ok2 := field(before, s.Section, s.Key)
		if ok1 && ok2 {
			dst.Set(src)
		}
	}
}

// field finds the struct field of c that a TOML section and key decode
// into.
func field(c *Config, section, key string) (reflect.Value, bool) {
	sec, ok := byTag(reflect.ValueOf(c).Elem(), section)
	if !ok || sec.Kind() != reflect.Struct {
		return reflect.Value{}, false
	}
	return byTag(sec, key)
}

func byTag(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if tag == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// checkURLs refuses an endpoint with credentials in a decoded file. The
// error never holds the password: it shows the URL without its userinfo.
func checkURLs(path string, doc map[string]any) error {
	for _, g := range GatedKeys {
		if !g.URL {
			continue
		}
		sec, _ := doc[g.Section].(map[string]any)
		s, ok := sec[g.Key].(string)
		if !ok {
			continue
		}
		if err := CheckEndpoint(s); err != nil {
			return fmt.Errorf("config %s: %s.%s %w", path, g.Section, g.Key, err)
		}
	}
	return nil
}

// CheckEndpoint refuses an endpoint URL that cannot be parsed or carries
// a user name or password. Its error never quotes the password.
func CheckEndpoint(raw string) error {
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		// url.Error quotes the whole URL, and the reason may quote a
		// piece of a password holding a '/': say why only without an '@'.
		var ue *url.Error
		why := ""
		if errors.As(err, &ue) && !strings.Contains(raw, "@") {
			why = " (" + ue.Err.Error() + ")"
		}
		return fmt.Errorf("is not a URL%s: give one such as \"https://api.openai.com/v1\"", why)
	}
	if u.User != nil {
		u.User = nil
		return fmt.Errorf("has a user name or password in it: dossier never stores credentials; "+
			"give %q and put the key in the environment variable named by api_key_env", u.String())
	}
	return nil
}
