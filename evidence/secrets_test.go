package evidence

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// TestAssembleWarnsAfterThePromptWithoutStderr: where the engine has no
// stderr (the workbench), `assemble` prints the prompt and then the
// warning, so neither is lost and the prompt comes first.
func TestAssembleWarnsAfterThePromptWithoutStderr(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "cmd"), 0o755)
	os.WriteFile(filepath.Join(root, "cmd", "main.go"), []byte(secrettest.GoFile()), 0o644)
	e := NewEngine(root)
	e.Getenv = func(string) string { return "" }
	ctx := context.Background()
	var w bytes.Buffer
	if err := e.Exec(ctx, []string{"evidence", "add", "cmd/main.go"}, &w); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.String(), "! secret in 100_main_go: cmd/main.go:4 (aws-access-token)") {
		t.Errorf("add does not warn:\n%s", w.String())
	}
	w.Reset()
	if err := e.Exec(ctx, []string{"assemble"}, &w); err != nil {
		t.Fatal(err)
	}
	out := w.String()
	prompt, warning, ok := strings.Cut(out, "  ! secret in 100_main_go:")
	if !ok || !strings.HasPrefix(prompt, "<!-- mdctx:") || !strings.Contains(warning, "redacted as [REDACTED:<rule-id>]") {
		t.Errorf("want the prompt, then the warning:\n%s", out)
	}
	if strings.Contains(prompt, secrettest.AWSKey) || !strings.Contains(prompt, "[REDACTED:aws-access-token]") {
		t.Errorf("the prompt is not redacted:\n%s", prompt)
	}
	var errs bytes.Buffer
	e.Stderr = &errs
	w.Reset()
	if err := e.Exec(ctx, []string{"assemble"}, &w); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(w.String(), "! secret") || !strings.Contains(errs.String(), "! secret in 100_main_go") {
		t.Errorf("with a stderr the warning goes there only:\nout %s\nerr %s", w.String(), errs.String())
	}
}
