package index

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/embed/embedtest"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/config"
)

// secretWorkspace holds a Go file with four credentials, credential files
// that discovery must skip, and an example env file it must not.
func secretWorkspace(t *testing.T) string {
	root := t.TempDir()
	write(t, root, "cmd/main.go", secrettest.GoFile())
	write(t, root, "clean.go", "package main\n\nfunc clean() {}\n")
	write(t, root, ".env.production", "DB_PASSWORD=Sup3rS3cretPassw0rd\n")
	write(t, root, "deploy/id_rsa", secrettest.PEM+"\n")
	write(t, root, ".env.example", "DB_PASSWORD=change-me\n")
	write(t, root, "keep/.env.local", "TOKEN=1\n")
	write(t, root, ".dossierignore", "!keep/.env.local\n")
	return root
}

func TestSecretsAreMarkedCountedAndSkipped(t *testing.T) {
	root := secretWorkspace(t)
	sum := run(t, root, func(o *Options) { o.Verbose = true })
	if sum.Secrets != 4 || sum.SecretFiles != 1 {
		t.Errorf("summary counts %d secrets in %d files, want 4 in 1", sum.Secrets, sum.SecretFiles)
	}
	skipped := map[string]string{}
	for _, s := range sum.SkippedFiles {
		skipped[s.Path] = s.Reason
	}
	for _, p := range []string{".env.production", "deploy/id_rsa"} {
		if skipped[p] != discover.ReasonSecretFile {
			t.Errorf("%s skipped as %q, want %q", p, skipped[p], discover.ReasonSecretFile)
		}
	}
	for _, p := range []string{".env.example", "keep/.env.local"} {
		if r, ok := skipped[p]; ok {
			t.Errorf("%s skipped (%s); examples and un-ignored files are indexed", p, r)
		}
	}
	// Each chunk carries the findings inside it, with file lines.
	var marks []string
	view(t, root, func(tx *store.Tx) {
		f, _, _ := tx.File("cmd/main.go")
		for _, id := range f.Chunks {
			c, _, _ := tx.Chunk(id)
			for _, s := range c.Secrets {
				marks = append(marks, s.Rule+":"+strconv.Itoa(s.Line)+"@"+c.Symbol)
			}
		}
	})
	want := "aws-access-token:4@ github-pat:7@token slack-bot-token:10@ private-key:12@"
	if got := strings.Join(marks, " "); got != want {
		t.Errorf("chunk marks\n got %s\nwant %s", got, want)
	}
	// Incremental runs keep the counts.
	write(t, root, "clean.go", "package main\n\nfunc cleaner() {}\n")
	if sum := run(t, root); sum.Secrets != 4 || sum.SecretFiles != 1 {
		t.Errorf("after an incremental run: %d secrets in %d files", sum.Secrets, sum.SecretFiles)
	}
}

// TestSearchMasksSecrets finds a leaked key by its text, its name and a
// regex, and never shows it.
func TestSearchMasksSecrets(t *testing.T) {
	root := secretWorkspace(t)
	run(t, root)
	e := search.NewEngine()
	for _, q := range []search.Query{
		{Text: secrettest.AWSKey, Mode: search.Text},
		{Text: "token", Mode: search.Symbol},
		{Text: "AKIA[0-9A-Z]{16}", Mode: search.Regex},
		{Text: "ghp_[0-9a-zA-Z]{36}", Mode: search.Regex},
		{Text: "slack token", Mode: search.Hybrid},
	} {
		res, err := e.SearchRoot(context.Background(), root, q)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		if len(res.Results) == 0 {
			t.Errorf("%s search %q found nothing", q.Mode, q.Text)
		}
		for _, r := range res.Results {
			for _, s := range secrettest.All() {
				if strings.Contains(r.Line, s[:20]) {
					t.Errorf("%s search %q shows the secret: %q", q.Mode, q.Text, r.Line)
				}
			}
			if r.Path == "cmd/main.go" && strings.Contains(r.Line, "const awsKey") && !strings.Contains(r.Line, "AKIA…[REDACTED:aws-access-token]") {
				t.Errorf("%s search %q: line %q lacks the mask", q.Mode, q.Text, r.Line)
			}
		}
	}
}

// TestRemoteEmbedderNeverSeesSecrets indexes through the fake endpoint,
// which fails any request holding a text with the key.
func TestRemoteEmbedderNeverSeesSecrets(t *testing.T) {
	srv := embedtest.NewServer(t)
	t.Setenv("TEST_EMBED_KEY", embedtest.Key)
	for _, s := range secrettest.All() {
		root := secretWorkspace(t)
		srv.Set(embedtest.OK)
		srv.FailOn(s[:min(len(s), 24)])
		m, e, err := NewEmbedder(config.Embed{Provider: "openai", BaseURL: srv.BaseURL(), Model: embedtest.Model, APIKeyEnv: "TEST_EMBED_KEY", MaxRetries: -1}, "")
		if err != nil {
			t.Fatal(err)
		}
		ix, err := Open(Options{Root: root, Model: m, Embedder: e})
		if err != nil {
			t.Fatal(err)
		}
		_, err = ix.Run(context.Background())
		ix.Close()
		if err != nil {
			t.Fatalf("a request held %q: %v", s[:min(len(s), 24)], err)
		}
		if _, texts := srv.Counts(); texts == 0 {
			t.Fatal("nothing was embedded; the test proves nothing")
		}
	}
}
