package search_test

import (
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index/search"
)

// kindFixture is a small HTTP library as a user sees one: the code that
// retries, a docs page and a README that explain it, a changelog that
// names it in every version, and the tests that try it.
var kindFixture = map[string]string{
	"httpkit/adapter.py": `import time


class Adapter:
    def __init__(self, max_retries=3, backoff=0.5):
        self.max_retries = max_retries
        self.backoff = backoff

    def send(self, request):
        """Send the request; a failed connection is handled by retrying with backoff."""
        for attempt in range(self.max_retries + 1):
            try:
                return self.connection.urlopen(request)
            except ConnectionError:
                if attempt == self.max_retries:
                    raise
                time.sleep(self.backoff * 2 ** attempt)
`,
	"docs/retries.md": `# Retries

Retries are handled for you: when a connection fails, the request is sent
again after a backoff. Set max_retries on the adapter to change how many
retries are made, and backoff to change how long they wait.
`,
	"docs/install.md": `# Installation

Install httpkit with pip from the package index; it supports Python 3.9 and
newer on Linux, macOS and Windows. Wheels are published for every platform.
`,
	"CHANGELOG.md": `# Changelog

## 2.1.0
- Retries: retries are handled with backoff; max_retries counts the retries.

## 2.0.0
- Retries are handled by the adapter; failed retries raise the last error.

## 1.9.0
- Fixed: retries handled twice when the connection failed during retries.
`,
	"tests/test_adapter.py": `from httpkit.adapter import Adapter


def test_send_retries_with_backoff():
    """A failed connection is retried max_retries times."""
    adapter = Adapter(max_retries=2, backoff=0)
    adapter.connection = FailingConnection(failures=2)
    assert adapter.send("GET /") == "ok"
    assert adapter.connection.calls == 3
`,
}

// TestKindPriorRanksCodeFirst proves the document-kind prior: a question
// about behaviour ranks the code that implements it first, above the docs,
// the changelog and the tests that use the same words more often; a query
// that asks for docs, tests or the changelog ranks them first; and a
// question only prose answers is answered by it.
func TestKindPriorRanksCodeFirst(t *testing.T) {
	root := goTree(t, kindFixture)
	cases := []struct {
		query, want string
	}{
		{"where are retries handled", "httpkit/adapter.py"},
		{"how are failed retries handled with backoff", "httpkit/adapter.py"},
		{"retries documentation", "docs/retries.md"},
		{"how to configure retries", "docs/retries.md"},
		{"changelog of retries", "CHANGELOG.md"},
		{"tests of send retries with backoff", "tests/test_adapter.py"},
		{"which python platforms are supported by the wheels", "docs/install.md"},
	}
	for _, c := range cases {
		resp := query(t, root, search.Query{Text: c.query, MinScore: search.DefaultMinScore})
		if r := first(t, resp); r.Path != c.want {
			t.Errorf("%q: first is %s %s (%.3f), want %s", c.query, r.Path, r.Symbol, r.Score, c.want)
		}
	}
	// Release notes never rank above code that matches as well, and a
	// test ranks after the code it tests.
	resp := query(t, root, search.Query{Text: "where are retries handled", MinScore: 0})
	pos := map[string]int{}
	for i, r := range resp.Results {
		if _, ok := pos[r.Path]; !ok {
			pos[r.Path] = i + 1
		}
	}
	for _, p := range []string{"CHANGELOG.md", "tests/test_adapter.py", "docs/retries.md"} {
		if pos[p] != 0 && pos[p] < pos["httpkit/adapter.py"] {
			t.Errorf("%s ranks %d, above the code (%d)", p, pos[p], pos["httpkit/adapter.py"])
		}
	}
	if t.Failed() {
		for _, r := range resp.Results {
			t.Logf("%s %s %s %.3f", r.Path, r.Symbol, strings.Join(r.Sources, "+"), r.Score)
		}
	}
}

// TestReleaseNotesByName: a changelog is known by its whole name, a name
// and a version, or its folder, never by a prefix of another document's
// name (docs/release-process.md is a guide, not release notes).
func TestReleaseNotesByName(t *testing.T) {
	for p, want := range map[string]bool{
		"CHANGELOG.md": true, "HISTORY.rst": true, "NEWS": true, "RELEASE-NOTES.md": true, "CHANGES.txt": true,
		"docs/whatsnew.rst": true, "changelog-2.1.md": true, "NEWS_v3.txt": true, "docs/changelog/1.2.md": true,
		"docs/release-process.md": false, "release_checklist.md": false, "docs/news-feed-design.md": false,
		"history-of-auth.md": false, "changes-to-config.md": false,
	} {
		if got := search.IsReleaseNotes(p); got != want {
			t.Errorf("IsReleaseNotes(%q) = %v, want %v", p, got, want)
		}
	}
}
