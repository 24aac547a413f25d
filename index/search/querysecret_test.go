package search_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/embed/embedtest"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// TestQuerySecretIsNotSent searches, in the modes that embed the query,
// for words and a pasted key: the embeddings request carries the words and
// the key's marker, never the key; the response notes it. Every front-end
// (CLI, MCP, workbench) searches through SearchRoot, where this happens.
func TestQuerySecretIsNotSent(t *testing.T) {
	srv := embedtest.NewServer(t)
	root, c := remoteWorkspace(t, srv, "10s", 0)
	e := search.NewEngine()
	e.AllowEndpoint(c)
	query := "total price " + secrettest.AWSKey
	for _, mode := range []search.Mode{search.Hybrid, search.Vector} {
		srv.Set(embedtest.OK)
		resp, err := e.SearchRoot(context.Background(), root, search.Query{Text: query, Mode: mode})
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		in := srv.Inputs()
		if len(in) != 1 || in[0] != "total price [REDACTED:aws-access-token]" {
			t.Errorf("%s: the endpoint got %q, want the query redacted", mode, in)
		}
		said := func(n string) bool {
			return strings.Contains(n, "aws-access-token") && strings.Contains(n, "[REDACTED:")
		}
		// A warning (what the workbench's overlay and the CLI's stderr
		// show), and so a note too.
		if !slices.ContainsFunc(resp.Debug.Warnings, said) || !slices.ContainsFunc(resp.Debug.Notes, said) {
			t.Errorf("%s: no warning says the query was redacted: %q, notes %q", mode, resp.Debug.Warnings, resp.Debug.Notes)
		}
		if !strings.Contains(resp.Debug.Strategy, "vector") {
			t.Errorf("%s: the redacted query is not searched by vectors: %s", mode, resp.Debug.Strategy)
		}
	}
}
