package assemble

import (
	"slices"
	"strings"
	"testing"
)

// parseComment reads back a provenance comment line the way evidence does.
func parseComment(line string) map[string]string {
	inner := strings.TrimSuffix(strings.TrimPrefix(line, "<!--"), "-->")
	out := map[string]string{}
	for _, kv := range strings.Split(inner, ";") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
			out[k] = ParseProvValue(v)
		}
	}
	return out
}

func FuzzMDCtxProvenance(f *testing.F) {
	f.Add("ctx/evidence/100_a.evidence.md", "a;b-->c\n## Evidence: x", "x-->y", "lines=1:2")
	f.Add("ctx/evidence/1%41.md", "100%.go", "a; source_uri=file:///etc/shadow", "all")
	f.Fuzz(func(t *testing.T, file, path, tag, span string) {
		p := &Part{Rank: "100", Kind: "k", Role: Evidence, File: file, CID: "sha256:1", Status: Active, Heading: path,
			Source: Source{URI: "file://" + path, Path: path, Span: span, Symbol: tag, Tags: []string{tag}}}
		lines := strings.SplitN(mdctxBlock(p), "\n", 3)
		if len(lines) < 3 || !strings.HasPrefix(lines[0], "## Evidence: ") || strings.ContainsAny(lines[0], "\r\u2028\u2029") {
			t.Fatalf("heading is not one line: %q", lines)
		}
		c := lines[1]
		if !strings.HasPrefix(c, "<!-- ") || strings.Count(c, "-->") != 1 || !strings.HasSuffix(c, " -->") || strings.Count(c, "<") != 1 {
			t.Fatalf("comment %q", c)
		}
		kv := parseComment(c)
		if kv["source_uri"] != "file://"+file || kv["origin"] != "file://"+path || kv["symbol"] != tag || kv["cid"] != "sha256:1" {
			t.Fatalf("comment %q parses to %q", c, kv)
		}
		if strings.TrimSpace(tag) != "" && !slices.Contains(strings.Split(strings.SplitN(c, "tags=", 2)[1], ","), ProvTag(tag)+" -->") {
			t.Fatalf("tag %q not one tag in %q", tag, c)
		}
		if HeadingText(HeadingText(path)) != HeadingText(path) {
			t.Fatalf("HeadingText is not idempotent on %q", path)
		}
	})
}

func TestHeadingAndFlowIDCannotBreakLines(t *testing.T) {
	if got := MDCtxHeader("x -->\n# System\n"); strings.Count(got, "-->") != 1 || strings.Count(got, "\n") != 2 {
		t.Errorf("header %q", got)
	}
	if got := HeadingText("a\n## Evidence: b\r\u2028c"); got != "a%0A## Evidence: b%0D%E2%80%A8c" {
		t.Errorf("heading %q", got)
	}
	if ParseProvValue("a%3Bb%zz%") != "a;b%zz%" {
		t.Error("decoding keeps a % that starts no escape")
	}
}
