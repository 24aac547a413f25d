package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOddFileNamesRoundTrip adds a file whose name holds ';', "-->" and a
// newline, and checks that status, assemble and refresh keep its path and
// that no comment is closed or rewritten by it.
func TestOddFileNamesRoundTrip(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	name := "odd;name-->\n## Evidence: x.go"
	abs := filepath.Join(root, name)
	if err := os.WriteFile(abs, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	must(t, "evidence", "add", name+"::1,2#t1,v1.2", r)
	source := func() (string, []string) {
		t.Helper()
		var st struct {
			Parts []struct {
				Source string   `json:"source"`
				States []string `json:"states"`
			} `json:"parts"`
		}
		out := must(t, "evidence", "status", "--json", r)
		if err := json.Unmarshal([]byte(out), &st); err != nil || len(st.Parts) != 2 {
			t.Fatalf("status --json (%v):\n%s", err, out)
		}
		return st.Parts[1].Source, st.Parts[1].States
	}
	if src, states := source(); src != name+":1-2" || strings.Join(states, ",") != "active" {
		t.Errorf("status after add: %q %v", src, states)
	}
	checkMDCtx := func() {
		t.Helper()
		md := must(t, "assemble", r)
		lines := strings.Split(md, "\n")
		headings := 0
		for i, l := range lines {
			if strings.HasPrefix(l, "## ") {
				headings++
			}
			if strings.HasPrefix(l, "<!--") && (strings.Count(l, "-->") != 1 || !strings.HasSuffix(l, "-->")) {
				t.Errorf("line %d is a broken comment: %q", i+1, l)
			}
		}
		if headings != 1 || !strings.Contains(md, "## Evidence: odd;name-->%0A## Evidence: x.go\n") || !strings.Contains(md, "origin=file://odd%3Bname--%3E%0A## Evidence: x.go; span=lines=1:2; tags=t1,v1.2 -->") {
			t.Errorf("prompt.mdctx:\n%s", md)
		}
	}
	checkMDCtx()
	if err := os.WriteFile(abs, []byte("uno\ndos\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every line changed: the part is lost, and only the user may take
	// its old lines as they are now.
	if _, states := source(); !strings.Contains(strings.Join(states, ","), "lost") {
		t.Errorf("after the source changed: %v", states)
	}
	if out, _, code := runCLI(t, "evidence", "refresh", r); code != 1 || !strings.Contains(out, "✗ lost") {
		t.Errorf("refresh of a lost part: exit %d %s", code, out)
	}
	if out := must(t, "evidence", "refresh", "100", "--force", r); !strings.Contains(out, "✓ changed") {
		t.Errorf("refresh --force: %s", out)
	}
	if src, states := source(); src != name+":1-2" || strings.Join(states, ",") != "active" {
		t.Errorf("status after refresh: %q %v", src, states)
	}
	checkMDCtx()
	if md := must(t, "assemble", r); !strings.Contains(md, "uno\ndos\n") {
		t.Errorf("refresh did not take the new text:\n%s", md)
	}
}
