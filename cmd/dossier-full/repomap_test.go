package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble/tokens"
)

// mapWorkspace is flowWorkspace with two clusters that reference their
// own definitions: alpha's thing is used by three files, beta's by one,
// so plain PageRank lists alpha's first.
func mapWorkspace(t *testing.T) (root, r string) {
	root = flowWorkspace(t)
	r = "--root=" + root
	files := map[string]string{
		"alpha/thing.go": "package alpha\n\n// AlphaThing is alpha's core.\nfunc AlphaThing() int { return 1 }\n",
		"alpha/one.go":   "package alpha\n\nfunc One() int { return AlphaThing() }\n",
		"alpha/two.go":   "package alpha\n\nfunc Two() int { return AlphaThing() + AlphaThing() }\n",
		"alpha/three.go": "package alpha\n\nfunc Three() int { return AlphaThing() * 3 }\n",
		"beta/thing.go":  "package beta\n\n// BetaThing is beta's core.\nfunc BetaThing() int { return 2 }\n",
		"beta/user.go":   "package beta\n\nfunc BetaUser() int { return BetaThing() }\n",
	}
	writeTree(t, root, files)
	must(t, "index", r)
	return root, r
}

// mapPart returns the text of the flow's repo map part and the map inside
// its fence.
func mapPart(t *testing.T, root string) (string, string) {
	t.Helper()
	ps, _ := filepath.Glob(filepath.Join(flowDir(t, root), "ctx", "evidence", "*map*"))
	if len(ps) != 1 {
		t.Fatalf("want one map part, have %q", ps)
	}
	raw, err := os.ReadFile(ps[0])
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	_, body, _ := strings.Cut(text, "```text\n")
	body, _, _ = strings.Cut(body, "```\n")
	return text, body
}

func flowCounter(t *testing.T, r string) tokens.Counter {
	var st struct{ Encoding string }
	if err := json.Unmarshal([]byte(must(t, "evidence", "status", "--json", r)), &st); err != nil {
		t.Fatal(err)
	}
	c, err := tokens.ForEncoding(st.Encoding)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRepoMapFitsItsBudget(t *testing.T) {
	root, r := mapWorkspace(t)
	must(t, "evidence", "add", "map:40", r)
	text, m := mapPart(t, root)
	if !strings.Contains(text, "source_uri=map:40;") {
		t.Fatalf("the part does not say how it was made:\n%s", text)
	}
	c := flowCounter(t, r)
	n := c.Count(m)
	if n > 40 || n < 30 {
		t.Fatalf("the map has %d tokens for a budget of 40:\n%s", n, m)
	}
	// The whole map is longer: what was left out would not have fit.
	must(t, "evidence", "add", "map:4000", r)
	ps, _ := filepath.Glob(filepath.Join(flowDir(t, root), "ctx", "evidence", "*map_4000*"))
	raw, _ := os.ReadFile(ps[0])
	if whole := string(raw); c.Count(whole) <= 40 || !strings.Contains(whole, "parser/parse.go:\n  var ErrSyntax = errors.New(\"syntax error\")\n  func Parse(src string) (string, error)\n") {
		t.Fatalf("the large map is not the whole grouped map:\n%s", whole)
	}
}

func TestRepoMapFollowsTheFlow(t *testing.T) {
	root, r := mapWorkspace(t)
	must(t, "evidence", "add", "map:2000", r)
	_, plain := mapPart(t, root)
	if a, b := strings.Index(plain, "alpha/thing.go:"), strings.Index(plain, "beta/thing.go:"); a < 0 || b < 0 || a > b {
		t.Fatalf("plain PageRank should list alpha's core before beta's:\n%s", plain)
	}
	// Two builds for the same index and flow are byte for byte the same.
	if out := must(t, "evidence", "refresh", r); !strings.Contains(out, "unchanged") {
		t.Fatalf("refresh of an unchanged flow changed the map:\n%s", out)
	}
	if _, again := mapPart(t, root); again != plain {
		t.Fatalf("two builds differ:\n%s\n---\n%s", plain, again)
	}
	// Evidence about beta's user brings beta's core up, and status says
	// the map would change before refresh rebuilds it.
	must(t, "evidence", "add", "beta/user.go", r)
	if st := must(t, "evidence", "status", "--json", r); !strings.Contains(st, `"changed"`) {
		t.Fatalf("status does not mark the map changed:\n%s", st)
	}
	if d := must(t, "flow", "diff", r); !strings.Contains(d, "changed  100_map_2000: re-ranked") || !strings.Contains(d, "+beta/thing.go:") {
		t.Fatalf("flow diff does not show the map's re-ranking:\n%s", d)
	}
	out := must(t, "evidence", "refresh", r)
	if !strings.Contains(out, "re-ranked") {
		t.Fatalf("refresh did not rebuild the map:\n%s", out)
	}
	_, focused := mapPart(t, root)
	if a, b := strings.Index(focused, "alpha/thing.go:"), strings.Index(focused, "beta/thing.go:"); b < 0 || a >= 0 && b > a {
		t.Fatalf("the map does not follow the flow's evidence (beta/user.go):\n%s", focused)
	}
	if st := must(t, "evidence", "status", "--json", r); strings.Contains(st, `"changed"`) {
		t.Fatalf("status still marks the rebuilt map changed:\n%s", st)
	}
}

func TestRepoMapBadBudget(t *testing.T) {
	_, r := mapWorkspace(t)
	for sel, want := range map[string]string{
		"map:":       "whole number of tokens above 0",
		"map:0":      "whole number of tokens above 0",
		"map:-5":     "whole number of tokens above 0",
		"map:lots":   "whole number of tokens above 0",
		"map:999999": "no overview",
	} {
		_, errOut, code := runCLI(t, "evidence", "add", sel, r)
		if code == 0 || !strings.Contains(errOut, sel+": ") || !strings.Contains(errOut, want) {
			t.Errorf("add %s: exit %d, %q; want an error naming it and %q", sel, code, errOut, want)
		}
	}
}
