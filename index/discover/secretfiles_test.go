package discover

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSecretFilesAreSkipped walks a tree holding one file for each kind of
// credential file, and their look-alikes that are not: the fast name check
// must never keep a pattern from seeing its file.
func TestSecretFilesAreSkipped(t *testing.T) {
	root := t.TempDir()
	secret := []string{".env", ".env.production", "app/.env.local", "tls/server.pem", "tls/server.key", "k.p12", "k.pfx",
		"k.jks", "a.keystore", "putty.ppk", "vault.kdbx", "home/id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".netrc",
		"_netrc", ".pgpass", ".git-credentials", ".htpasswd", ".pypirc", ".aws/credentials", "sub/.aws/credentials", ".docker/config.json", "app/.docker/config.json",
		"gcloud/application_default_credentials.json", "credentials.json"}
	plain := []string{".env.example", ".env.prod.example", ".env.sample", ".env.template", ".env.dist", ".env.defaults",
		".env.schema", "environment.go", "key.go", "keys.json", "id_rsa.pub", "config.json", "credentials.go", "pem.go"}
	for _, p := range append(secret, plain...) {
		abs := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(abs), 0o755)
		os.WriteFile(abs, []byte("x\n"), 0o644)
	}
	skips := NewSkips(true)
	seen := map[string]bool{}
	err := Walk(t.Context(), root, Options{}, skips, func(c Candidate) error { seen[c.Rel] = true; return nil })
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, s := range skips.List() {
		reasons[s.Path] = s.Reason
	}
	for _, p := range secret {
		if reasons[p] != ReasonSecretFile {
			t.Errorf("%s: skipped as %q, want %s", p, reasons[p], ReasonSecretFile)
		}
		if _, reason, _ := Check(root, p, Options{}); reason != ReasonSecretFile {
			t.Errorf("Check(%s) = %q", p, reason)
		}
	}
	for _, p := range plain {
		if !seen[p] {
			t.Errorf("%s was not indexed (%s)", p, reasons[p])
		}
	}
}
