package mcp

import (
	"fmt"
	"strings"
	"testing"
)

// evidence_add with a folder of more than a handful of files lists them
// with their tokens and adds nothing until the call confirms; exclusions
// and outlines go through as the CLI's '!PATTERN' and --outline.
func TestEvidenceAddFolderNeedsConfirm(t *testing.T) {
	root := testWorkspace(t)
	for i := 1; i <= 6; i++ {
		writeFile(t, root, fmt.Sprintf("calc/ops/op%d.go", i), fmt.Sprintf("package ops\n\n// Op%d applies step %d.\nfunc Op%d(x int) int {\n\treturn x + %d\n}\n", i, i, i, i))
	}
	writeFile(t, root, "calc/ops/ops_test.go", "package ops\n")
	_, cs := connect(t, root, false)
	ok(t, cs, "flow_new", map[string]any{"name": "ops"})
	args := map[string]any{"selector": "calc/ops/", "exclude": []string{"**/*_test.go"}}
	text, _ := ok(t, cs, "evidence_add", args)
	for _, want := range []string{"6 files to add", "calc/ops/op1.go", "calc/ops/op6.go", "tokens", "confirm: true"} {
		if !strings.Contains(text, want) {
			t.Errorf("unconfirmed evidence_add lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "ops_test.go") {
		t.Errorf("the exclusion was not applied:\n%s", text)
	}
	if status, _ := ok(t, cs, "evidence_status", nil); strings.Contains(status, "op1") {
		t.Fatalf("an unconfirmed folder was added:\n%s", status)
	}
	args["confirm"], args["outline"] = true, true
	text, _ = ok(t, cs, "evidence_add", args)
	if strings.Count(text, "✓ Added evidence") != 6 {
		t.Errorf("confirmed evidence_add:\n%s", text)
	}
	status, out := ok(t, cs, "evidence_status", nil)
	parts, _ := out["parts"].([]any)
	outlines := 0
	for _, p := range parts {
		if states := fmt.Sprint(p.(map[string]any)["states"]); strings.Contains(states, "outline") {
			outlines++
		}
	}
	if outlines != 6 || strings.Contains(status, "ops_test") {
		t.Errorf("want the 6 op files as outlines and no test, got %d outlines:\n%s", outlines, status)
	}
}
