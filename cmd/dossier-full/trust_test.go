package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/embed/embedtest"
)

// TestUntrustedWorkspaceSendsNothing: a cloned workspace's .dossier.toml
// pointing [embed] at a server gets no request from index or search until
// the user runs `dossier trust`; each command says once what it ignored.
func TestUntrustedWorkspaceSendsNothing(t *testing.T) {
	srv := embedtest.NewServer(t)
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	t.Setenv("TEST_EMBED_KEY", embedtest.Key)
	t.Setenv("OTHER_KEY", embedtest.Key)
	root := t.TempDir()
	writeFile(t, root, "billing/invoice.go", "package billing\n\n// SendInvoiceEmail mails the invoice.\nfunc SendInvoiceEmail(to string) error { return nil }\n")
	writeFile(t, root, "gen/big.go", "package gen\n\nfunc Generated() {}\n")
	conf := fmt.Sprintf("[index]\nexclude = [\"gen/\"]\n[embed]\nprovider = \"openai\"\nbase_url = %q\nmodel = %q\napi_key_env = \"TEST_EMBED_KEY\"\nmax_retries = -1\n", srv.BaseURL(), embedtest.Model)
	writeFile(t, root, ".dossier.toml", conf)
	file := filepath.Join(root, ".dossier.toml")
	notice := "dossier: ignoring [embed] provider, base_url, api_key_env, model in " + file + ": this workspace is not trusted"

	run := func(want int, args ...string) (string, string) {
		t.Helper()
		out, stderr, code := runCLI(t, args...)
		if code != want {
			t.Fatalf("%v: exit %d, want %d\n%s%s", args, code, want, out, stderr)
		}
		return out, stderr
	}
	quiet := func(what string) {
		t.Helper()
		if reqs, _ := srv.Counts(); reqs != 0 {
			t.Errorf("%s: %d requests reached the endpoint", what, reqs)
		}
	}

	out, stderr := run(exitOK, "index", "--root", root, "--json")
	quiet("untrusted index")
	if strings.Count(stderr, notice) != 1 || strings.Count(stderr, "\n") != 1 {
		t.Errorf("untrusted index: stderr %q, want the one notice line %q", stderr, notice)
	}
	if strings.Contains(out, "gen/big.go") || !strings.Contains(out, `"ignored": 1`) {
		t.Errorf("the workspace's [index] exclude did not apply:\n%s", out)
	}
	_, stderr = run(exitOK, "search", "--root", root, "mail the invoice")
	quiet("untrusted search")
	if strings.Count(stderr, notice) != 1 {
		t.Errorf("untrusted search: stderr %q", stderr)
	}

	if _, stderr := run(exitUsage, "trust", "--list", "--revoke"); !strings.Contains(stderr, "give one of") {
		t.Errorf("trust --list --revoke: %q", stderr)
	}
	// trust --status changes nothing; trust shows the settings and records.
	out, _ = run(exitOK, "trust", "--status", "--root", root)
	if !strings.Contains(out, srv.BaseURL()) || !strings.Contains(out, "not trusted") {
		t.Errorf("trust --status:\n%s", out)
	}
	run(exitOK, "index", "--root", root)
	quiet("index after trust --status")
	out, _ = run(exitOK, "trust", "--root", root)
	if !strings.Contains(out, `api_key_env = "TEST_EMBED_KEY"`) || strings.Contains(out, embedtest.Key) || !strings.Contains(out, "trusted:") {
		t.Errorf("trust:\n%s", out)
	}
	srv.Set("")
	_, stderr = run(exitOK, "index", "--root", root)
	if reqs, _ := srv.Counts(); reqs == 0 || stderr != "" {
		t.Errorf("trusted index: %d requests, stderr %q", reqs, stderr)
	}
	srv.Set("")
	run(exitOK, "search", "--root", root, "--mode", "vector", "mail the invoice")
	if reqs, _ := srv.Counts(); reqs != 1 {
		t.Errorf("trusted search: %d requests, want 1", reqs)
	}
	if out, _ := run(exitOK, "trust", "--list"); !strings.Contains(out, "; honoured)") {
		t.Errorf("trust --list:\n%s", out)
	}

	// Another key variable is another setting: asked again.
	writeFile(t, root, ".dossier.toml", strings.Replace(conf, "TEST_EMBED_KEY", "OTHER_KEY", 1))
	srv.Set("")
	_, stderr = run(exitOK, "index", "--root", root)
	quiet("changed settings")
	if !strings.Contains(stderr, "changed since you trusted") {
		t.Errorf("changed settings: stderr %q", stderr)
	}
	run(exitOK, "trust", "--root", root)
	run(exitOK, "index", "--root", root)

	// Revoked: the index still records the endpoint its vectors came
	// from (as would an index file cloned with the workspace), and a
	// query is not sent there.
	run(exitOK, "trust", "--revoke", "--root", root)
	srv.Set("")
	if _, stderr := run(exitError, "search", "--root", root, "--mode", "vector", "mail the invoice"); !strings.Contains(stderr, "your settings do not name") {
		t.Errorf("vector search on an index of an untrusted endpoint: %q", stderr)
	}
	if out, _ := run(exitOK, "search", "--root", root, "mail the invoice"); !strings.Contains(out, "vectors left out") || !strings.Contains(out, "SendInvoiceEmail") {
		t.Errorf("hybrid search on an index of an untrusted endpoint:\n%s", out)
	}
	quiet("search after revoke")
	run(exitOK, "index", "--root", root)
	quiet("index after revoke")
}

// TestCredentialsInURL: a base_url with user:password is refused, and the
// password is in no output.
func TestCredentialsInURL(t *testing.T) {
	srv := embedtest.NewServer(t)
	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	root := t.TempDir()
	writeFile(t, root, "a.go", "package a\n")
	withPW := strings.Replace(srv.BaseURL(), "://", "://bob:hunter2@", 1)
	conf := fmt.Sprintf("[embed]\nprovider = \"openai\"\nbase_url = %q\nmodel = %q\n", withPW, embedtest.Model)
	for _, where := range []string{"workspace", "user"} {
		if where == "user" {
			os.Remove(filepath.Join(root, ".dossier.toml"))
			writeFile(t, cfgHome, "dossier/config.toml", conf)
		} else {
			writeFile(t, root, ".dossier.toml", conf)
		}
		for _, args := range [][]string{{"index"}, {"search", "x"}, {"trust"}, {"trust", "--status"}, {"stats"}} {
			out, stderr, code := runCLI(t, append(args, "--root", root)...)
			if code != exitError || strings.Contains(out+stderr, "hunter2") || !strings.Contains(stderr, "api_key_env") {
				t.Errorf("%s config, %v: exit %d\n%s%s", where, args, code, out, stderr)
			}
		}
	}
	if reqs, _ := srv.Counts(); reqs != 0 {
		t.Errorf("%d requests with credentials in the URL", reqs)
	}
}
