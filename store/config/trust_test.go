package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const remoteEmbed = "[index]\nexclude = [\"gen/\"]\n[embed]\nprovider = \"openai\"\nbase_url = \"https://evil.example/v1\"\n" +
	"model = \"m\"\napi_key_env = \"AWS_SECRET_ACCESS_KEY\"\nbatch_size = 7\n"

func TestUntrustedWorkspaceGatedKeysIgnored(t *testing.T) {
	root := workspace(t, "[embed]\nprovider = \"openai\"\nbase_url = \"http://localhost:11434/v1\"\nmodel = \"mine\"\n", remoteEmbed)
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	// The user's endpoint stays; the workspace's tuning and excludes apply.
	want := Embed{Provider: "openai", BaseURL: "http://localhost:11434/v1", Model: "mine", BatchSize: 7}
	if c.Embed != want {
		t.Errorf("Embed = %+v, want %+v", c.Embed, want)
	}
	if len(c.Index.Exclude) != 1 || c.Index.Exclude[0] != "gen/" {
		t.Errorf("non-gated workspace setting lost: %+v", c.Index)
	}
	if len(c.Notices) != 1 {
		t.Fatalf("Notices = %q, want one", c.Notices)
	}
	n := c.Notices[0]
	for _, s := range []string{filepath.Join(root, FileName), "[embed] provider, base_url, api_key_env, model", "not trusted", "dossier trust --root "} {
		if !strings.Contains(n, s) {
			t.Errorf("notice %q does not mention %q", n, s)
		}
	}
	if strings.Contains(n, "evil.example") || strings.Contains(n, "AWS_SECRET") {
		t.Errorf("notice quotes values: %q", n)
	}
}

func TestTrustHonoursUntilChanged(t *testing.T) {
	root := workspace(t, "", remoteEmbed)
	w, err := Trust(root, time.Now())
	if err != nil || w.State != Trusted {
		t.Fatalf("Trust = %+v, %v", w, err)
	}
	c, err := Load(root)
	if err != nil || c.Embed.BaseURL != "https://evil.example/v1" || c.Embed.APIKeyEnv != "AWS_SECRET_ACCESS_KEY" || len(c.Notices) != 0 {
		t.Fatalf("trusted: %+v %q %v", c.Embed, c.Notices, err)
	}
	// A non-gated change keeps trust; a gated one loses it.
	os.WriteFile(filepath.Join(root, FileName), []byte(remoteEmbed+"[ui]\ntheme = \"dark\"\n"), 0o644)
	if c, _ := Load(root); c.Embed.BaseURL == "" || len(c.Notices) != 0 {
		t.Errorf("non-gated change dropped trust: %+v %q", c.Embed, c.Notices)
	}
	os.WriteFile(filepath.Join(root, FileName), []byte(strings.Replace(remoteEmbed, "evil.example", "worse.example", 1)), 0o644)
	c, err = Load(root)
	if err != nil || c.Embed.BaseURL != "" || c.Embed.Provider != "" || len(c.Notices) != 1 || !strings.Contains(c.Notices[0], "changed since you trusted") {
		t.Errorf("changed settings still honoured: %+v %q %v", c.Embed, c.Notices, err)
	}
	if w, _ := Inspect(root); w.State != Changed {
		t.Errorf("Inspect state %v, want Changed", w.State)
	}
	// Trusted again, then revoked.
	if _, err := Trust(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	if ok, err := Revoke(root); !ok || err != nil {
		t.Fatalf("Revoke = %v, %v", ok, err)
	}
	if c, _ := Load(root); c.Embed.BaseURL != "" || len(c.Notices) != 1 {
		t.Errorf("revoked workspace honoured: %+v", c.Embed)
	}
	if ok, err := Revoke(root); ok || err != nil {
		t.Errorf("second Revoke = %v, %v", ok, err)
	}
}

func TestUserConfigAlwaysHonoured(t *testing.T) {
	root := workspace(t, strings.TrimPrefix(remoteEmbed, "[index]\nexclude = [\"gen/\"]\n"), "[index]\nworkers = 2\n")
	c, err := Load(root)
	if err != nil || c.Embed.BaseURL != "https://evil.example/v1" || c.Index.Workers != 2 || len(c.Notices) != 0 {
		t.Errorf("user config: %+v %+v %q %v", c.Embed, c.Index, c.Notices, err)
	}
}

func TestWorkspaceMayAskForBuiltin(t *testing.T) {
	root := workspace(t, "[embed]\nprovider = \"openai\"\nbase_url = \"http://localhost:11434/v1\"\nmodel = \"mine\"\n",
		"[embed]\nprovider = \"builtin\"\n")
	c, err := Load(root)
	if err != nil || c.Embed.Provider != "builtin" || len(c.Notices) != 0 {
		t.Errorf("builtin from an untrusted workspace: %+v %q %v", c.Embed, c.Notices, err)
	}
	if w, _ := Inspect(root); w.State != NothingToTrust {
		t.Errorf("state %v, want NothingToTrust", w.State)
	}
}

func TestTrustFileModesAndContent(t *testing.T) {
	root := workspace(t, "", remoteEmbed)
	dir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "dossier")
	os.MkdirAll(dir, 0o755) // an existing, looser directory is tightened
	if _, err := Trust(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	path, _ := TrustFilePath()
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("trust file mode %v, %v; want 0600", st.Mode(), err)
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, %v; want 0700", st.Mode(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".trusted-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	list, err := TrustedWorkspaces()
	if err != nil || len(list) != 1 || list[0].Root != canonical(root) || len(list[0].Settings) != 4 {
		t.Fatalf("TrustedWorkspaces = %+v, %v", list, err)
	}
	if s := list[0].Settings[1]; s != `[embed] base_url = "https://evil.example/v1"` {
		t.Errorf("recorded setting %q", s)
	}
}

func TestCorruptTrustFile(t *testing.T) {
	root := workspace(t, "", remoteEmbed)
	path, _ := TrustFilePath()
	os.MkdirAll(filepath.Dir(path), 0o700)
	for name, content := range map[string]string{"not json": "{\"version\": 1, \"workspaces\": {", "future": `{"version": 9}`, "wrong type": `{"version": "1"}`} {
		os.WriteFile(path, []byte(content), 0o600)
		// Load fails closed, and says which file to fix.
		c, err := Load(root)
		if err != nil || c.Embed.BaseURL != "" || len(c.Notices) != 1 || !strings.Contains(c.Notices[0], path) {
			t.Errorf("%s: Load = %+v %q %v", name, c.Embed, c.Notices, err)
		}
		// Trust refuses to overwrite the user's other entries.
		if _, err := Trust(root, time.Now()); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: Trust error %v", name, err)
		}
		if _, err := TrustedWorkspaces(); err == nil {
			t.Errorf("%s: TrustedWorkspaces read a corrupt file", name)
		}
	}
	// A file others may write vouches for nothing.
	os.Remove(path)
	if _, err := Trust(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o666)
	if c, _ := Load(root); c.Embed.BaseURL != "" || len(c.Notices) != 1 || !strings.Contains(c.Notices[0], "chmod 600") {
		t.Errorf("world-writable trust file honoured: %+v %q", c.Embed, c.Notices)
	}
}

func TestCredentialsInURLRefused(t *testing.T) {
	for _, local := range []string{
		"[embed]\nprovider = \"openai\"\nbase_url = \"https://bob:hunter2@api.example/v1\"\nmodel = \"m\"\n",
		"[embed]\nbase_url = \"https://bob:hunter2@api.example/v1\"\n",    // untrusted and unused: still refused
		"[embed]\nbase_url = \"https://bob:hun/ter2@api.example:x/v1\"\n", // does not parse
	} {
		root := workspace(t, "", local)
		_, err := Load(root)
		if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "ter2") || !strings.Contains(err.Error(), FileName) {
			t.Errorf("%q: error %v", local, err)
		}
		if err != nil && strings.Contains(local, "api.example/v1") && !strings.Contains(err.Error(), `"https://api.example/v1"`) {
			t.Errorf("error does not give the URL without credentials: %v", err)
		}
	}
	if err := (Embed{Provider: "openai", BaseURL: "http://u:pw@h/v1", Model: "m"}).Check(); err == nil || strings.Contains(err.Error(), "pw") {
		t.Errorf("Check = %v", err)
	}
}

func TestGatedKeysNameFields(t *testing.T) {
	var c Config
	for _, g := range GatedKeys {
		if _, ok := field(&c, g.Section, g.Key); !ok {
			t.Errorf("gated key [%s] %s names no field of Config", g.Section, g.Key)
		}
	}
}
