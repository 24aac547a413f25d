package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func workspace(t *testing.T, user, local string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	if user != "" {
		os.MkdirAll(filepath.Join(home, "dossier"), 0o755)
		os.WriteFile(filepath.Join(home, "dossier", "config.toml"), []byte(user), 0o644)
	}
	root := t.TempDir()
	if local != "" {
		os.WriteFile(filepath.Join(root, FileName), []byte(local), 0o644)
	}
	return root
}

func TestDefaults(t *testing.T) {
	c, err := Load(workspace(t, "", ""))
	if err != nil || !reflect.DeepEqual(c, Default()) || c.Index.MaxFileSize != 1<<20 {
		t.Errorf("Load = %+v, %v", c, err)
	}
}

func TestWorkspaceOverridesUser(t *testing.T) {
	root := workspace(t, "[index]\nworkers = 3\nmax_file_size = 10\n", "[index]\nmax_file_size = 2048\nexclude = [\"gen/\"]\n")
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	want := Index{MaxFileSize: 2048, Workers: 3, Exclude: []string{"gen/"}, HistoryDepth: DefaultHistoryDepth,
		HistoryCommits: DefaultHistoryCommits, IncludeRunSummaries: true}
	if !reflect.DeepEqual(c.Index, want) {
		t.Errorf("Index = %+v, want %+v", c.Index, want)
	}
}

func TestHistoryKeys(t *testing.T) {
	c, err := Load(workspace(t, "", "[index]\nhistory_depth = 0\nhistory_commits = 50\ninclude_run_summaries = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Index.HistoryDepth != 0 || c.Index.HistoryCommits != 50 || c.Index.IncludeRunSummaries {
		t.Errorf("Index = %+v, want history off, 50 commits, no run summaries", c.Index)
	}
	for file, want := range map[string]string{
		"[index]\nhistory_depth = -1\n":  "index.history_depth must be 0",
		"[index]\nhistory_commits = 0\n": "index.history_commits must be a positive",
	} {
		if _, err := Load(workspace(t, "", file)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", file, err, want)
		}
	}
}

func TestErrorsNameFileAndPlace(t *testing.T) {
	for name, tc := range map[string]struct{ file, want string }{
		"unknown key": {"[index]\nmax_size = 1\n", ":2:1: unknown setting index.max_size"},
		// Quoted keys holding escapes crashed go-toml 2.2.4's error wrapping
		// (issue 30); the name is shown with Go's escapes, never raw.
		"escape in key":  {"[llm]\n\"a\\u001b\" = 1\n", `:2:1: unknown setting llm."a\x1b"`},
		"tab in key":     {"[llm]\n\"a\\tb\" = 1\n", `:2:1: unknown setting llm."a\tb"`},
		"newline in key": {"[llm]\n\"a\\nb\" = 1\nc = 2\n", `:2:1: unknown setting llm."a\nb" (and 1 more)`},
		"wrong type":     {"[index]\nworkers = \"two\"\n", ":2:"},
		"bad syntax":     {"[index\n", ":1:"},
		"negative":       {"[index]\nworkers = -1\n", "index.workers"},
		"zero size":      {"[index]\nmax_file_size = 0\n", "max_file_size must be positive"},
	} {
		_, err := Load(workspace(t, "", tc.file))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, tc.want)
		}
		if err != nil && name != "negative" && name != "zero size" && !strings.Contains(err.Error(), FileName) {
			t.Errorf("%s: error does not name the file: %v", name, err)
		}
		if err != nil && strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Errorf("%s: error holds a control character: %q", name, err)
		}
	}
}

func FuzzLoad(f *testing.F) {
	for _, s := range []string{"", "[index]\nworkers = 2\n", "[index]\nexclude = [\"a\", \"b/\"]\n", "[[x]]\n", "a = 1\n[index]\nmax_file_size = 9\n",
		"[embed]\nprovider = \"openai\"\nbase_url = \"http://h/v1\"\nmodel = \"m\"\napi_key_env = \"K\"\n",
		"[llm]\nbase_url = \"http://h/v1\"\nmodel = \"m\"\napi_key_env = \"K\"\nserver_state = true\ntemperature = 0.5\n",
		"[llm]\n\"a\\u001b\" = 1\n", "[llm]\n\"a\\tb\" = 1\n", "[llm]\n\"a\\nb\" = 1\n", "[\"e\\u001b\"]\n\"\\u0000\" = 1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		t.Setenv("XDG_CONFIG_HOME", t.TempDir())
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, FileName), []byte(data), 0o644)
		c, err := Load(root)
		if err != nil && strings.ContainsFunc(err.Error(), func(r rune) bool { return r < ' ' || r == 0x7f }) {
			t.Errorf("error holds a control character: %q", err)
		}
		if err == nil && (c.Index.MaxFileSize <= 0 || c.Index.Workers < 0) {
			t.Errorf("accepted invalid settings %+v", c.Index)
		}
		// Nothing is trusted here: no gated setting may come through.
		if e := c.Embed; err == nil && (e.Provider != "" && e.Provider != ProviderBuiltin || e.BaseURL != "" || e.APIKeyEnv != "" || e.Model != "" || e.Dimensions != 0) {
			t.Errorf("untrusted workspace set %+v", e)
		}
		if l := c.LLM; err == nil && (l.BaseURL != "" || l.APIKeyEnv != "" || l.Model != "" || l.ServerState) {
			t.Errorf("untrusted workspace set %+v", l)
		}
	})
}

func TestEmbedSettings(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, FileName), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("[embed]\nprovider = \"openai\"\nbase_url = \"http://localhost:11434/v1\"\nmodel = \"nomic-embed-text\"\ndimensions = 768\napi_key_env = \"OLLAMA_KEY\"\ntimeout = \"30s\"\n")
	if _, err := Trust(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if c.Embed.Provider != "openai" || c.Embed.Model != "nomic-embed-text" || c.Embed.Dimensions != 768 || c.Embed.APIKeyEnv != "OLLAMA_KEY" {
		t.Errorf("embed settings not read: %+v", c.Embed)
	}
	for _, bad := range []struct{ toml, want string }{
		{"[embed]\nprovider = \"openia\"\n", `"openia"`},
		{"[embed]\nprovider = \"openai\"\n", "needs embed.base_url and embed.model"},
		{"[embed]\nprovider = \"openai\"\nbase_url = \"http://x\"\nmodel = \"m\"\ntimeout = \"soon\"\n", `"soon"`},
	} {
		write(bad.toml)
		if _, err := Inspect(root); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: Inspect error %v, want one mentioning %s", bad.toml, err, bad.want)
		}
		if _, err := Trust(root, time.Now()); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: Trust error %v, want one mentioning %s", bad.toml, err, bad.want)
		}
	}
}

// TestUntrustedWorkspaceCannotWidenWhatFlowsRead: extra_roots and
// secrets.allow from a workspace file wait for trust like the embedder.
func TestUntrustedWorkspaceCannotWidenWhatFlowsRead(t *testing.T) {
	root := workspace(t, "", "[evidence]\nextra_roots = [\"/etc\"]\n[secrets]\nallow = true\n")
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Evidence.ExtraRoots) != 0 || c.Secrets.Allow {
		t.Errorf("untrusted workspace set extra_roots %v, allow %v", c.Evidence.ExtraRoots, c.Secrets.Allow)
	}
	if len(c.Notices) != 1 || !strings.Contains(c.Notices[0], "[secrets] allow") || !strings.Contains(c.Notices[0], "[evidence] extra_roots") {
		t.Errorf("notices %q", c.Notices)
	}
	if _, err := Trust(root, time.Now()); err != nil {
		t.Fatal(err)
	}
	if c, err = Load(root); err != nil || len(c.Evidence.ExtraRoots) != 1 || !c.Secrets.Allow {
		t.Errorf("trusted workspace: extra_roots %v, allow %v (%v)", c.Evidence.ExtraRoots, c.Secrets.Allow, err)
	}
}

// TestConfirmSend: the workbench asks before a send unless the user's own
// config says confirm_send = false; an untrusted workspace cannot turn the
// question off (it may always ask for it).
func TestConfirmSend(t *testing.T) {
	root := workspace(t, "", "[ui]\nconfirm_send = false\n")
	c, err := Load(root)
	if err != nil {
		t.Fatal(err)
	}
	if !c.UI.Confirm() || len(c.Notices) != 1 || !strings.Contains(c.Notices[0], "[ui] confirm_send") {
		t.Errorf("untrusted workspace: Confirm %v, notices %q", c.UI.Confirm(), c.Notices)
	}
	if c, err := Load(workspace(t, "", "[ui]\nconfirm_send = true\n")); err != nil || !c.UI.Confirm() || len(c.Notices) != 0 {
		t.Errorf("confirm_send = true: Confirm %v, notices %q (%v)", c.UI.Confirm(), c.Notices, err)
	}
	if c, err := Load(workspace(t, "[ui]\nconfirm_send = false\n", "")); err != nil || c.UI.Confirm() {
		t.Errorf("the user's confirm_send = false: Confirm %v (%v)", c.UI.Confirm(), err)
	}
}

// TestOtherCasesAreRefused: the decoder matches names in any case, the
// trust gate by their exact names, so [Embed] Base_URL must not pass.
func TestOtherCasesAreRefused(t *testing.T) {
	for _, file := range []string{
		"[Embed]\nprovider = \"openai\"\n",
		"[embed]\nProvider = \"openai\"\nBase_URL = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n",
		"[secrets]\nAllow = true\n",
		"[Evidence]\nextra_roots = [\"/etc\"]\n",
		"[\"ev\u0130dence\"]\nextra_roots = [\"/etc\"]\n",
		"[embed]\n\"prov\u0130der\" = \"openai\"\n",
		"[embed]\n\"api_\u212aey_env\" = \"X\"\n",
	} {
		c, err := Load(workspace(t, "", file))
		if err == nil || !strings.Contains(err.Error(), "lower case") {
			t.Errorf("%q: err %v (embed %+v, allow %v)", file, err, c.Embed, c.Secrets.Allow)
		}
	}
}

// TestSpecialConfigFilesNeverBlock: a FIFO or a device in the config's
// place is an error, at once.
func TestSpecialConfigFilesNeverBlock(t *testing.T) {
	root := workspace(t, "", "")
	if err := syscall.Mkfifo(filepath.Join(root, FileName), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("FIFO config: %v", err)
	}
	os.Remove(filepath.Join(root, FileName))
	os.Symlink("/dev/zero", filepath.Join(root, FileName))
	if _, err := Load(root); err == nil || !strings.Contains(err.Error(), "symlink out of the workspace") {
		t.Errorf("/dev/zero config: %v", err)
	}
}

// TestConfigLinkedOutOfTheWorkspace: a workspace's .dossier.toml that links
// to a file elsewhere (a credentials file) is refused before it is read, so
// no error quotes its lines.
func TestConfigLinkedOutOfTheWorkspace(t *testing.T) {
	root := workspace(t, "", "")
	outside := filepath.Join(t.TempDir(), "credentials")
	os.WriteFile(outside, []byte("aws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCY\n"), 0o600)
	os.Symlink(outside, filepath.Join(root, FileName))
	_, err := Load(root)
	if err == nil || !strings.Contains(err.Error(), "symlink out of the workspace") || strings.Contains(err.Error(), "wJalr") {
		t.Errorf("Load = %v", err)
	}
}

// TestFiles: the files a running workbench watches are those Load reads.
func TestFiles(t *testing.T) {
	root := workspace(t, "", "")
	home := os.Getenv("XDG_CONFIG_HOME")
	want := []string{filepath.Join(root, FileName), filepath.Join(home, "dossier", "config.toml"), filepath.Join(home, "dossier", TrustFileName)}
	if got := Files(root); !slices.Equal(got, want) {
		t.Errorf("Files = %q, want %q", got, want)
	}
}
