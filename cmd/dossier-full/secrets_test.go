package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// secretsWorkspace is a workspace with a Go file holding four made-up
// credentials and a production env file.
func secretsWorkspace(t *testing.T) string {
	t.Helper()
	t.Setenv("FLOW_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "cmd"), 0o755)
	os.WriteFile(filepath.Join(root, "cmd", "main.go"), []byte(secrettest.GoFile()), 0o644)
	os.WriteFile(filepath.Join(root, ".env.production"), []byte("DB_PASSWORD=Sup3rS3cretPassw0rd\n"), 0o644)
	return root
}

// noSecret fails when out shows any of the credentials.
func noSecret(t *testing.T, what, out string) {
	t.Helper()
	for _, s := range secrettest.All() {
		if strings.Contains(out, strings.SplitN(s, "\n", 2)[0]) {
			t.Errorf("%s shows the secret %.20s…:\n%s", what, s, out)
		}
	}
}

// TestSecretsNeverLeaveUnannounced walks a leaked key through the CLI:
// stats counts it, search finds it masked, adding it warns, and every exit
// (four formats, --out, --copy, build/) carries markers, not secrets, until
// --allow-secrets, which ctxplan.json records.
func TestSecretsNeverLeaveUnannounced(t *testing.T) {
	root := secretsWorkspace(t)
	r := "--root=" + root
	out := must(t, "index", r)
	if !strings.Contains(out, "secret_file") {
		t.Errorf("index summary does not count the env file as secret_file:\n%s", out)
	}
	if stats := must(t, "stats", r); !strings.Contains(stats, "secrets 4 in 1 files") {
		t.Errorf("stats:\n%s", stats)
	}
	if list := must(t, "stats", "--secrets", r); list != "cmd/main.go:4\taws-access-token\ncmd/main.go:7\tgithub-pat\ncmd/main.go:10\tslack-bot-token\ncmd/main.go:12\tprivate-key\n" {
		t.Errorf("stats --secrets:\n%s", list)
	}
	for _, args := range [][]string{{"search", secrettest.AWSKey}, {"search", "--mode", "regex", "AKIA[0-9A-Z]{16}"}, {"search", "--json", "slack"}} {
		out := must(t, append(args, r)...)
		noSecret(t, strings.Join(args, " "), out)
		if !strings.Contains(out, "cmd/main.go") {
			t.Errorf("%v does not find the file:\n%s", args, out)
		}
	}
	if out := must(t, "search", "--mode", "regex", "AKIA[0-9A-Z]{16}", r); !strings.Contains(out, "AKIA…[REDACTED:aws-access-token]") {
		t.Errorf("the regex hit is not masked with a hint:\n%s", out)
	}

	out = must(t, "evidence", "add", "cmd/main.go::3", r)
	if !strings.Contains(out, "! secret in 100_main_go_3_15: cmd/main.go:4 (aws-access-token), cmd/main.go:7 (github-pat), cmd/main.go:10 (slack-bot-token), cmd/main.go:12 (private-key)") {
		t.Errorf("add does not warn of the secrets:\n%s", out)
	}
	dir := flowDir(t, root)
	for _, format := range []string{"mdctx", "aptix", "responses", "pack"} {
		stdout, stderr, code := runCLI(t, "assemble", "--format", format, r)
		if code != 0 {
			t.Fatalf("assemble %s: %s", format, stderr)
		}
		noSecret(t, format, stdout)
		for _, rule := range secrettest.Rules {
			if !strings.Contains(stdout, "[REDACTED:"+rule+"]") {
				t.Errorf("%s lacks the marker of %s", format, rule)
			}
		}
		if !strings.Contains(stderr, "! secret in 100_main_go_3_15: cmd/main.go:4 (aws-access-token)") || strings.Contains(stdout, "! secret") {
			t.Errorf("%s: the warning goes to stderr only; stderr:\n%s", format, stderr)
		}
	}
	out = must(t, "assemble", "--out", filepath.Join(root, "p.md"), r)
	got, _ := os.ReadFile(filepath.Join(root, "p.md"))
	noSecret(t, "--out", string(got))
	if !strings.Contains(out, "! secret in 100_main_go_3_15") {
		t.Errorf("--out does not warn:\n%s", out)
	}
	must(t, "assemble", "--copy", "--copy-method", "file", r)
	for _, f := range []string{"clipboard.txt", "prompt.mdctx"} {
		got, _ := os.ReadFile(filepath.Join(dir, "build", f))
		noSecret(t, f, string(got))
		if !strings.Contains(string(got), "[REDACTED:private-key]") {
			t.Errorf("%s lacks the markers", f)
		}
	}
	// The clean set remembers the other parts' versions, never the one
	// with secrets, and a second run still redacts.
	cleanSet, _ := os.ReadFile(filepath.Join(root, ".dossier", "secrets.clean"))
	if strings.Count(string(cleanSet), "sha256:") != 0 {
		t.Errorf("the only part has secrets, yet the clean set lists cids:\n%s", cleanSet)
	}
	must(t, "evidence", "add", "--role", "system", "--text", "Answer briefly.", r)
	noSecret(t, "assemble with a clean set", must(t, "assemble", r))
	if cleanSet, _ = os.ReadFile(filepath.Join(root, ".dossier", "secrets.clean")); !strings.HasPrefix(string(cleanSet), "dossier secrets.clean 1 ") || strings.Count(string(cleanSet), "sha256:") != 1 {
		t.Errorf("the clean system part is not remembered:\n%s", cleanSet)
	}
	plan := func() (mode string, n int) {
		var p struct {
			Secrets struct {
				Mode     string
				Findings []struct{ Part, Rule, Source string }
			}
		}
		raw, _ := os.ReadFile(filepath.Join(dir, "build", "ctxplan.json"))
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		return p.Secrets.Mode, len(p.Secrets.Findings)
	}
	if mode, n := plan(); mode != "redacted" || n != 4 {
		t.Errorf("ctxplan.json secrets: %s, %d findings", mode, n)
	}

	stdout, stderr, _ := runCLI(t, "assemble", "--allow-secrets", r)
	if !strings.Contains(stdout, secrettest.AWSKey) || !strings.Contains(stderr, "sent as they are") {
		t.Errorf("--allow-secrets does not send the key, or says nothing:\n%s", stderr)
	}
	if mode, n := plan(); mode != "allowed" || n != 4 {
		t.Errorf("ctxplan.json after --allow-secrets: %s, %d findings", mode, n)
	}
	// The next plain assembly redacts again.
	noSecret(t, "assemble after --allow-secrets", must(t, "assemble", r))

	// [secrets] allow from the user's config allows; from an untrusted
	// workspace it is ignored.
	os.WriteFile(filepath.Join(root, ".dossier.toml"), []byte("[secrets]\nallow = true\n"), 0o644)
	stdout, stderr, _ = runCLI(t, "assemble", r)
	noSecret(t, "an untrusted workspace's allow", stdout)
	if !strings.Contains(stderr, "ignoring [secrets] allow") {
		t.Errorf("the ignored setting is not announced:\n%s", stderr)
	}
	os.Remove(filepath.Join(root, ".dossier.toml"))
	cfgDir := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "dossier")
	os.MkdirAll(cfgDir, 0o700)
	os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte("[secrets]\nallow = true\n"), 0o600)
	if stdout, _, _ := runCLI(t, "assemble", r); !strings.Contains(stdout, secrettest.AWSKey) {
		t.Error("[secrets] allow in the user's config does not allow")
	}
}

// TestCredentialFilesStayOutOfFlows: files the index skips as secret_file
// (whose secrets no rule may find) are refused by evidence add, until
// un-ignored.
func TestCredentialFilesStayOutOfFlows(t *testing.T) {
	root := secretsWorkspace(t)
	r := "--root=" + root
	os.WriteFile(filepath.Join(root, ".pgpass"), []byte("db:5432:app:admin:Tr0ub4dor&3xQ9zLmP\n"), 0o600)
	for _, f := range []string{".pgpass", ".env.production"} {
		_, errOut, code := runCLI(t, "evidence", "add", f, r)
		if code == 0 || !strings.Contains(errOut, "is a credential file") || !strings.Contains(errOut, "!/"+f) {
			t.Errorf("add %s: exit %d %s", f, code, errOut)
		}
	}
	// Nor as a request, through a link, or deeper in the tree.
	os.MkdirAll(filepath.Join(root, "sub", ".aws"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", ".aws", "credentials"), []byte("aws_secret_access_key = hunter2x\n"), 0o600)
	os.Symlink(".pgpass", filepath.Join(root, "notes.txt"))
	for _, args := range [][]string{{"--role", "user", ".pgpass"}, {"notes.txt"}, {"sub/.aws/credentials"}} {
		_, errOut, code := runCLI(t, append(append([]string{"evidence", "add"}, args...), r)...)
		if code == 0 || !strings.Contains(errOut, "is a credential file") {
			t.Errorf("add %v: exit %d %s", args, code, errOut)
		}
	}
	os.WriteFile(filepath.Join(root, ".dossierignore"), []byte("!/.pgpass\n"), 0o644)
	must(t, "evidence", "add", ".pgpass", r)
}

// TestGitFilesStayOutOfFlows: git's own files (its config may hold a
// remote URL with a token) are no workspace content: evidence add refuses
// them, at any depth, by a range, through a symlink, as a request, and
// gather refuses them as a target.
func TestGitFilesStayOutOfFlows(t *testing.T) {
	root := secretsWorkspace(t)
	r := "--root=" + root
	for rel, text := range map[string]string{
		".git/config":     "[remote \"origin\"]\n\turl = https://user:tok@example.com/r.git\n",
		".git/HEAD":       "ref: refs/heads/main\n",
		"sub/.git/config": "[core]\n\tbare = false\n",
		"wt/.git":         "gitdir: ../.git/worktrees/wt\n",
	} {
		writeFile(t, root, rel, text)
	}
	os.Symlink(".git/config", filepath.Join(root, "gitconfig.txt"))
	must(t, "index", r)
	for _, args := range [][]string{
		{"evidence", "add", ".git/config"}, {"evidence", "add", ".git/config::1,2"}, {"evidence", "add", "./.git/HEAD"},
		{"evidence", "add", "sub/.git/config"}, {"evidence", "add", "wt/.git"}, {"evidence", "add", "gitconfig.txt"},
		{"evidence", "add", filepath.Join(root, ".git", "config")}, {"evidence", "add", "cmd/../.git/config"},
		{"evidence", "add", "--role", "user", ".git/config"}, {"evidence", "gather", "fix", ".git/config"},
	} {
		_, errOut, code := runCLI(t, append(args, r)...)
		if code == 0 || !strings.Contains(errOut, "is git's own") {
			t.Errorf("%v: exit %d %s", args, code, errOut)
		}
	}
	// Their look-alikes are workspace files.
	writeFile(t, root, ".gitignore", "build/\n")
	writeFile(t, root, ".github/workflows/ci.yml", "on: push\n")
	must(t, "evidence", "add", ".gitignore", ".github/workflows/ci.yml", r)
	out, _, _ := runCLI(t, "evidence", "status", r)
	if strings.Contains(out, "config") || strings.Contains(out, "HEAD") {
		t.Errorf("a git file reached the flow:\n%s", out)
	}
}

// TestSpansThatCutASecret: a range that holds only the middle of a private
// key, or a value whose key is outside it, is still redacted: the source
// file is scanned whole.
func TestSpansThatCutASecret(t *testing.T) {
	root := secretsWorkspace(t)
	r := "--root=" + root
	value := "Zq8xW3rT9vLm2NpQ7sKd4Fh"
	keys := "package keys\n\nconst pem = `" + secrettest.PEM + "`\n\nvar cfg = map[string]string{\n\t\"api_key\":\n\t\t\"" + value + "\",\n}\n"
	os.WriteFile(filepath.Join(root, "keys.go"), []byte(keys), 0o644)
	body := strings.Split(secrettest.PEM, "\n")[1] // a line of the key's body
	must(t, "evidence", "add", "keys.go::4,5", "keys.go::10,10", r)
	stdout, stderr, code := runCLI(t, "assemble", r)
	if code != 0 {
		t.Fatal(stderr)
	}
	if strings.Contains(stdout, body) || strings.Contains(stdout, value) {
		t.Errorf("a cut secret leaves:\n%s", stdout)
	}
	for _, want := range []string{"keys.go:4 (private-key)", "keys.go:10 (generic-api-key)"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("no warning names %s:\n%s", want, stderr)
		}
	}
	// The lines after the redacted key stay where they were.
	if !strings.Contains(stdout, "[REDACTED:private-key]\n[REDACTED:private-key]") {
		t.Errorf("the key's two lines are not two markers:\n%s", stdout)
	}

	// A source with CRLF line ends, a byte range that starts and ends
	// inside the key, and a part whose source has since moved down.
	os.WriteFile(filepath.Join(root, "crlf.txt"), []byte(strings.ReplaceAll("x\n"+secrettest.PEM+"\ny\n", "\n", "\r\n")), 0o644)
	pemAt := strings.Index(keys, body)
	must(t, "evidence", "add", "crlf.txt::3,4", "keys.go::"+strconv.Itoa(pemAt+10)+"c,"+strconv.Itoa(pemAt+len(body)+30)+"c", "--force", r)
	os.WriteFile(filepath.Join(root, "keys.go"), []byte("// moved\n// down\n"+keys), 0o644)
	stdout, stderr, _ = runCLI(t, "assemble", r)
	for _, line := range strings.Split(secrettest.PEM, "\n")[1:3] {
		for _, cut := range []string{line[:20], line[20:40], line[44:]} {
			if strings.Contains(stdout, cut) {
				t.Errorf("a piece of the key leaves (%q):\n%s", cut, stdout)
			}
		}
	}
	if strings.Contains(stdout, value) {
		t.Errorf("the value leaves after its source moved:\n%s", stdout)
	}
}
