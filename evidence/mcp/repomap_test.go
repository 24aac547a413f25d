package mcp

import (
	"strings"
	"testing"
)

// TestEvidenceAddMap: evidence_add takes map:TOKENS through the same
// engine as the CLI: the repo map is a part of the flow, ranked by the
// index's references (calc_test.go calls Add), in the assembled prompt;
// evidence_status does not mark it changed while nothing moved; a bad
// budget is a tool error naming it.
func TestEvidenceAddMap(t *testing.T) {
	root := testWorkspace(t)
	indexWorkspace(t, root)
	_, cs := connect(t, root, false)
	ok(t, cs, "flow_new", map[string]any{"name": "overview", "request": "Explain the package"})
	fails(t, cs, "evidence_add", map[string]any{"selector": "map:0"}, "map:0: the map's budget is a whole number of tokens above 0")
	if text, _ := ok(t, cs, "evidence_add", map[string]any{"selector": "map:200"}); !strings.Contains(text, "map_200") {
		t.Fatalf("evidence_add map:200: %s", text)
	}
	prompt, _ := ok(t, cs, "assemble", nil)
	if !strings.Contains(prompt, "map:200") || !strings.Contains(prompt, "calc/calc.go:\n  func Add(a, b int) int\n") {
		t.Fatalf("the prompt lacks the map with calc's Add:\n%s", prompt)
	}
	if status, _ := ok(t, cs, "evidence_status", nil); strings.Contains(status, "changed") || !strings.Contains(status, "map_200") {
		t.Fatalf("evidence_status of a fresh map:\n%s", status)
	}
}
