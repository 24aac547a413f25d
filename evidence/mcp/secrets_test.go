package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// TestReadRedactsSpansOfAKey reads ranges of a file whose private key runs
// from line 4 to line 30, most of them holding only part of it: the whole
// file is scanned, as assembling a part of it does, so no range shows a
// line of the key, in its text or its structured content, on a full or a
// read-only server; each of the key's lines is one marker, so the lines
// after it keep their numbers.
func TestReadRedactsSpansOfAKey(t *testing.T) {
	root := testWorkspace(t)
	writeFile(t, root, "deploy/tls.go", secrettest.TLSGoFile())
	indexWorkspace(t, root)
	selectors := []string{"::5,5", "::7", "::6,10", "::6,30", "::3,8", "::100c,600c", "::4,30", "::1,33", ""}
	for _, readOnly := range []bool{false, true} {
		_, cs := connect(t, root, readOnly)
		for _, sel := range selectors {
			text, out := ok(t, cs, "read", map[string]any{"selector": "deploy/tls.go" + sel})
			noPiece(t, fmt.Sprintf("read %s (read-only %v)", sel, readOnly), text, out)
		}
		// A search result's text cut by the budget inside the key.
		for _, budget := range []int{300, 1000, 12000} {
			text, out := ok(t, cs, "search", map[string]any{"query": "TLSKey", "mode": "symbol", "text_budget": budget})
			noPiece(t, "search with text_budget "+strconv.Itoa(budget), text, out)
		}
		text, _ := ok(t, cs, "read", map[string]any{"selector": "deploy/tls.go::6,10"})
		if want := "deploy/tls.go:6-10\n 6  [REDACTED:private-key]\n 7  [REDACTED:private-key]\n 8  [REDACTED:private-key]\n 9  [REDACTED:private-key]\n10  [REDACTED:private-key]\n"; text != want {
			t.Errorf("read ::6,10:\n%s\nwant\n%s", text, want)
		}
		text, _ = ok(t, cs, "read", map[string]any{"selector": "deploy/tls.go"})
		if !strings.Contains(text, "\n29  [REDACTED:private-key]\n") || !strings.Contains(text, "\n33  const Port = 8443\n") {
			t.Errorf("the lines after the key moved:\n%s", text)
		}
	}
}

// noPiece fails when a tool's text or structured content shows a piece of
// secrettest.TLSPEM, or has no marker of it.
func noPiece(t *testing.T, what, text string, out map[string]any) {
	t.Helper()
	raw, _ := json.Marshal(out)
	for _, piece := range secrettest.TLSPieces() {
		if strings.Contains(text, piece) || strings.Contains(string(raw), piece) {
			t.Errorf("%s shows %q of the key:\n%s\n%s", what, piece, text, raw)
			return
		}
	}
	if !strings.Contains(text, "[REDACTED:private-key]") || !strings.Contains(string(raw), "[REDACTED:private-key]") {
		t.Errorf("%s has no marker:\n%s\n%s", what, text, raw)
	}
}

// TestGitFilesAreNotServed: read, evidence_add, related and search's text
// refuse git's own files, however they are named.
func TestGitFilesAreNotServed(t *testing.T) {
	root := testWorkspace(t)
	for rel, text := range map[string]string{
		".git/config":     "[remote \"origin\"]\n\turl = https://user:tok@example.com/r.git\n",
		"sub/.git/config": "[core]\n\tbare = false\n",
		"wt/.git":         "gitdir: ../.git/worktrees/wt\n",
	} {
		writeFile(t, root, rel, text)
	}
	if err := os.Symlink(".git/config", filepath.Join(root, "cfg.txt")); err != nil {
		t.Fatal(err)
	}
	indexWorkspace(t, root)
	_, cs := connect(t, root, false)
	for _, sel := range []string{".git/config", ".git/config::1,2", "./.git/config", "calc/../.git/config", "sub/.git/config", "wt/.git", "cfg.txt", "cfg.txt::2"} {
		fails(t, cs, "read", map[string]any{"selector": sel}, "is git's own")
		fails(t, cs, "evidence_add", map[string]any{"selector": sel}, "is git's own")
	}
	fails(t, cs, "related", map[string]any{"target": ".git/config"}, "is git's own")
	text, out := ok(t, cs, "search", map[string]any{"query": "url", "mode": "regex"})
	raw, _ := json.Marshal(out)
	if strings.Contains(text+string(raw), "tok@") {
		t.Errorf("search shows the git config:\n%s", text)
	}
}
