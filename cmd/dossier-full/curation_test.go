package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFlowUsePrefix: `flow use` takes a unique prefix of a flow's id, as
// git does for commits, and names the candidates of an ambiguous one.
func TestFlowUsePrefix(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	first := filepath.Base(flowDir(t, root))
	must(t, "flow", "new", "second try", r)
	must(t, "flow", "new", "second thought", r)
	out := must(t, "flow", "use", first[:4], r)
	if filepath.Base(flowDir(t, root)) != first || !strings.Contains(out, "✓ Current flow: "+first) {
		t.Errorf("flow use %s did not switch to %s: %s", first[:4], first, out)
	}
	_, errOut, code := runCLI(t, "flow", "use", "second-t", r)
	if code != 1 || !strings.Contains(errOut, "ambiguous") || !strings.Contains(errOut, "second-thought-") || !strings.Contains(errOut, "second-try-") {
		t.Errorf("ambiguous prefix: exit %d %s", code, errOut)
	}
	if filepath.Base(flowDir(t, root)) != first {
		t.Error("an ambiguous prefix changed the current flow")
	}
	must(t, "flow", "use", "second-tr", r)
	if !strings.HasPrefix(filepath.Base(flowDir(t, root)), "second-try-") {
		t.Errorf("flow use second-tr: current is %s", flowDir(t, root))
	}
}

// TestFlowBudgetBackToDefault: 0, default and auto give a flow's budget
// back to the model's default.
func TestFlowBudgetBackToDefault(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	def := must(t, "evidence", "budget", r)
	if !strings.Contains(def, "40% of") {
		t.Fatalf("a new flow's budget is not the model's default:\n%s", def)
	}
	for _, how := range [][]string{{"flow", "set", "budget", "0"}, {"flow", "set", "budget", "default"}, {"flow", "set", "budget", "auto"}, {"evidence", "budget", "set", "default"}} {
		must(t, "flow", "set", "budget", "20k", r)
		if out := must(t, "evidence", "budget", r); !strings.Contains(out, "Budget: 20000 tokens (set for this flow)") {
			t.Fatalf("budget 20k not set:\n%s", out)
		}
		must(t, append(how, r)...)
		if out := must(t, "evidence", "budget", r); out != def {
			t.Errorf("%v: budget not back to the default:\n%s\nwant:\n%s", how, out, def)
		}
	}
	if _, errOut, code := runCLI(t, "flow", "set", "budget", "lots", r); code != 2 || !strings.Contains(errOut, "default or auto") {
		t.Errorf("flow set budget lots: exit %d %s", code, errOut)
	}
}

// TestGatherAddedNothingFails: a gather whose target is gone from the file
// (renamed) and so adds nothing exits non-zero; one that finds everything
// already in the flow still succeeds.
func TestGatherAddedNothingFails(t *testing.T) {
	root := gatherWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "gather", "fix", "parser/parse.go::@Parse", r)
	must(t, "evidence", "gather", "fix", "parser/parse.go::@Parse", r)
	p := filepath.Join(root, "parser", "parse.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(src), "func Parse(", "func ParseOne(", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "evidence", "gather", "fix", "parser/parse.go::@Parse", r)
	if code != 1 || !strings.Contains(out, "Added 0 part(s)") || !strings.Contains(errOut, "added nothing") {
		t.Errorf("gather of a renamed target: exit %d\n%s%s", code, out, errOut)
	}
}

// TestAptixIdSurvivesRegrooming: seed 000's Id is the chunk's source, not
// its part id, so `rank` and `rebase` leave it as an answer cited it.
func TestAptixIdSurvivesRegrooming(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "parser/parse.go::@Parse", r)
	must(t, "evidence", "add", "render/render.go::1,3", r)
	before := must(t, "assemble", "--format", "aptix", r)
	for _, id := range []string{"Id: parser/parse.go::@Parse\n", "Id: render/render.go::1,3\n"} {
		if !strings.Contains(before, id) {
			t.Fatalf("no %q in:\n%s", id, before)
		}
	}
	must(t, "evidence", "rank", "110_render_go_1_3", "50", r)
	must(t, "evidence", "rebase", r)
	after := must(t, "assemble", "--format", "aptix", r)
	for _, id := range []string{"Id: parser/parse.go::@Parse\n", "Id: render/render.go::1,3\n"} {
		if !strings.Contains(after, id) {
			t.Errorf("%q is gone after rank and rebase:\n%s", id, after)
		}
	}
}

// TestAddWiderSpanRefused: a span around a part would send its lines twice:
// it is refused with the part named and how to replace it; --force adds
// both, as asked.
func TestAddWiderSpanRefused(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "parser/parse.go::9,12", r)
	before := tree(t, flowDir(t, root))
	for _, sel := range []string{"parser/parse.go::8,14", "parser/parse.go"} {
		_, errOut, code := runCLI(t, "evidence", "add", sel, r)
		if code == 0 || !strings.Contains(errOut, "would hold 100_parse_go_9_12 (lines 9-12) a second time: refused") || !strings.Contains(errOut, "evidence remove 100_parse_go_9_12") {
			t.Errorf("add %s over 9-12: exit %d %s", sel, code, errOut)
		}
	}
	if tree(t, flowDir(t, root)) != before {
		t.Error("a refused wider span changed the flow")
	}
	must(t, "evidence", "add", "parser/parse.go::8,14", "--force", r)
}
