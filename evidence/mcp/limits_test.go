package mcp

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestSearchBounds: the search tool's schema and description give k's and
// text_budget's maximum, a call over either is refused saying so, and a
// regex matching every line of a workspace larger than the budget returns
// no more text than the maximum.
func TestSearchBounds(t *testing.T) {
	root := testWorkspace(t)
	// 120 functions of 10 KB: more than MaxTextBudget in 100 results.
	for i := range 120 {
		var b strings.Builder
		fmt.Fprintf(&b, "package big\n\n// F%d adds one to n, line after line.\nfunc F%d(n int) int {\n", i, i)
		for j := range 80 {
			fmt.Fprintf(&b, "\tn = n + 1 // step %d of %d: %s\n", j, i, strings.Repeat("x", 90))
		}
		b.WriteString("\treturn n\n}\n")
		writeFile(t, root, fmt.Sprintf("big/f%03d.go", i), b.String())
	}
	indexWorkspace(t, root)
	_, cs := connect(t, root, true)

	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Name != "search" {
			continue
		}
		props := tool.InputSchema.(map[string]any)["properties"].(map[string]any)
		for name, want := range map[string]float64{"k": MaxK, "text_budget": MaxTextBudget} {
			p := props[name].(map[string]any)
			if p["maximum"] != want || !strings.Contains(fmt.Sprint(p["description"]), fmt.Sprint(want)) {
				t.Errorf("schema of %s: %v, want maximum %v, said in its description", name, p, want)
			}
		}
		if !strings.Contains(tool.Description, "At most 100 results (k) and 262144 bytes") {
			t.Errorf("the description does not give the bounds: %s", tool.Description)
		}
	}

	fails(t, cs, "search", map[string]any{"query": "x", "k": MaxK + 1}, "k 101 is over the maximum of 100 results per search")
	fails(t, cs, "search", map[string]any{"query": "x", "k": 1 << 30}, "k 1073741824 is over the maximum of 100")
	fails(t, cs, "search", map[string]any{"query": "x", "text_budget": MaxTextBudget + 1}, "text_budget 262145 is over the maximum of 262144 bytes")
	fails(t, cs, "search", map[string]any{"query": "x", "k": "many"}, "k")

	text, out := ok(t, cs, "search", map[string]any{"query": ".", "mode": "regex", "k": MaxK, "text_budget": MaxTextBudget})
	results := out["results"].([]any)
	total, trimmed := 0, 0
	for _, r := range results {
		total += len(fmt.Sprint(r.(map[string]any)["text"]))
		if r.(map[string]any)["trimmed"] == true {
			trimmed++
		}
	}
	if len(results) != MaxK || total > MaxTextBudget || total < MaxTextBudget/2 {
		t.Errorf("%d results with %d bytes of text; want %d, at most %d bytes and more than half of it", len(results), total, MaxK, MaxTextBudget)
	}
	// Line numbers and one heading per result on top of the text.
	if limit := MaxTextBudget*3/2 + MaxK*400; len(text) > limit {
		t.Errorf("the text is %d bytes, over %d", len(text), limit)
	}
	t.Logf("regex '.' k=%d text_budget=%d: %d results, %d bytes of chunk text, %d bytes of tool text, %d results trimmed", MaxK, MaxTextBudget, len(results), total, len(text), trimmed)
}
