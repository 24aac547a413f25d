package main

import (
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/evidence"
)

// TestMCPHTTPOrigin serves streamable HTTP and calls it as web pages
// would: a page of another origin (a hostile site, another port of
// localhost) gets 403 and changes nothing, even on a session another
// client opened; a request without Origin (an agent), the server's own
// origin and an --allow-origin one are served.
func TestMCPHTTPOrigin(t *testing.T) {
	t.Setenv("FLOW_DIR", "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := workspace(t, 1)
	must(t, "index", "--root", root)
	url := serveHTTP(t, nil, "mcp", "--root", root, "--http", "127.0.0.1:0", "--allow-origin", "http://localhost:6274")
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	own := "http://" + u.Host

	// post sends one JSON-RPC message as a page of origin would (site is
	// its Sec-Fetch-Site, "" for none) and returns the status, the body
	// and the session it names.
	post := func(method, origin, site, session, body string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range map[string]string{"Origin": origin, "Sec-Fetch-Site": site, "Mcp-Session-Id": session} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		// A guard against a hang, far above any answer's time.
		resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if method == "GET" && resp.StatusCode == http.StatusOK {
			return resp.StatusCode, "(an event stream)", "" // it never ends
		}
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw), resp.Header.Get("Mcp-Session-Id")
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	flowNew := func(name string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"flow_new","arguments":{"name":"` + name + `"}}}`
	}
	flows := func() []string {
		t.Helper()
		entries, _ := os.ReadDir(evidence.FlowsDir(root))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		cur, _ := os.ReadFile(filepath.Join(evidence.FlowsDir(root), "current"))
		return append(names, "current="+strings.TrimSpace(string(cur)))
	}

	// A hostile page cannot even start a session.
	if code, body, _ := post("POST", "http://evil.example", "", "", initialize); code != http.StatusForbidden || !strings.Contains(body, "--allow-origin http://evil.example") {
		t.Errorf("initialize from http://evil.example: %d %s", code, body)
	}
	// An agent (no Origin) opens one and starts a flow.
	code, body, session := post("POST", "", "", "", initialize)
	if code != http.StatusOK || session == "" {
		t.Fatalf("initialize without Origin: %d %s", code, body)
	}
	post("POST", "", "", session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if code, body, _ := post("POST", "", "", session, flowNew("mine")); code != http.StatusOK || !strings.Contains(body, "mine") {
		t.Fatalf("flow_new without Origin: %d %s", code, body)
	}
	before := flows()

	// Pages of other origins, on that session, by every method: 403, and
	// the flows are as they were.
	for _, c := range []struct{ method, origin, site string }{
		{"POST", "http://evil.example", ""},
		{"POST", "http://evil.example", "cross-site"},
		{"POST", "http://localhost:5173", "same-site"}, // another port of localhost
		{"POST", "http://localhost:5173", ""},
		{"POST", "null", ""},
		{"GET", "http://evil.example", ""},
		{"DELETE", "http://evil.example", ""},
	} {
		code, body, _ := post(c.method, c.origin, c.site, session, flowNew("evil"))
		if code != http.StatusForbidden || !strings.Contains(body, "refused a cross-origin request") {
			t.Errorf("%s from %s (Sec-Fetch-Site %q): %d %s, want 403", c.method, c.origin, c.site, code, body)
		}
	}
	if after := flows(); strings.Join(after, " ") != strings.Join(before, " ") {
		t.Errorf("refused requests changed the flows:\nbefore %v\nafter  %v", before, after)
	}

	// The server's own origin and the allowed one are served.
	for _, c := range []struct{ origin, site, name string }{{own, "same-origin", "own"}, {own, "", "own2"}, {"http://localhost:6274", "same-site", "allowed"}} {
		if code, body, _ := post("POST", c.origin, c.site, session, flowNew(c.name)); code != http.StatusOK || !strings.Contains(body, c.name) {
			t.Errorf("flow_new from %s (Sec-Fetch-Site %q): %d %s", c.origin, c.site, code, body)
		}
	}
}
