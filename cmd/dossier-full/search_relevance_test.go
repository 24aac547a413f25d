package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchSaysNoResults: a query nothing in the index answers prints
// "no results" with a hint, and --json gives an empty list with the
// threshold; a real one shows its best line; an unknown --type or --mode
// is a usage error naming the known values.
func TestSearchSaysNoResults(t *testing.T) {
	root := workspace(t, 3)
	os.WriteFile(filepath.Join(root, "pkg000", "mail.go"), []byte(`package p0

/**
 * Mailer sends things.
 */
type Mailer struct{}

// Send delivers the message.
//
// It retries.
func (m *Mailer) Send(to string) error {
	body := render(to)
	return deliverInvoiceByCarrierPigeon(to, body)
}
`), 0o644)
	if _, stderr, code := runCLI(t, "index", "--root", root); code != exitOK {
		t.Fatalf("index: %d %s", code, stderr)
	}
	out, stderr, code := runCLI(t, "search", "--root", root, "xyzzyplugh")
	if code != exitOK || !strings.Contains(out, `no results for "xyzzyplugh" scoring at least 0.10`) || !strings.Contains(out, "--mode symbol") {
		t.Errorf("nonsense: %d %q %q", code, out, stderr)
	}
	out, _, code = runCLI(t, "search", "--root", root, "--json", "qwv zzkj")
	var resp struct {
		Results  []json.RawMessage `json:"results"`
		MinScore *float64          `json:"min_score"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil || code != exitOK || resp.Results == nil || len(resp.Results) != 0 || resp.MinScore == nil || *resp.MinScore != 0.1 {
		t.Errorf("nonsense --json: %d %s", code, out)
	}
	out, _, _ = runCLI(t, "search", "--root", root, "--json", "deliver invoice by carrier pigeon")
	var found struct {
		Results []struct {
			Symbol    string `json:"symbol"`
			Line      string `json:"line"`
			MatchLine int    `json:"match_line"`
		} `json:"results"`
	}
	json.Unmarshal([]byte(out), &found)
	if len(found.Results) == 0 || found.Results[0].Symbol != "Mailer.Send" || found.Results[0].MatchLine != 13 ||
		!strings.HasPrefix(found.Results[0].Line, "return deliverInvoiceByCarrierPigeon") {
		t.Errorf("best line: %s", out)
	}
	out, _, _ = runCLI(t, "search", "--root", root, "deliver invoice by carrier pigeon")
	if !strings.Contains(out, "      13: return deliverInvoiceByCarrierPigeon(to, body)") {
		t.Errorf("best line in text: %s", out)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--type", "functoin"}, []string{`unknown type "functoin"`, "function", "method", "test", "doc"}},
		{[]string{"--type", "function,nope"}, []string{`unknown type "nope"`}},
		{[]string{"--mode", "fuzzy"}, []string{`--mode "fuzzy"`, "hybrid, text, vector, symbol, regex"}},
	} {
		_, stderr, code := runCLI(t, append(append([]string{"search", "--root", root}, c.args...), "send")...)
		if code != exitUsage {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, exitUsage, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: %q lacks %q", c.args, stderr, w)
			}
		}
	}
}
