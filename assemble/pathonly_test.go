package assemble

import (
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble/tokens"
)

// pathOnlyFlow is a flow of one code part at the given detail, with the
// provenance a real part carries (a part-file cid, an origin, a symbol).
func pathOnlyFlow(d Detail) *Flow {
	p := Part{Rank: "310", Kind: "server_go_serve", Role: Evidence, Status: Active, Detail: d,
		File:    "ctx/evidence/310_server_go_serve.evidence.md",
		CID:     "sha256:9f2c4e1b7a0d3c5e8f6a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6a",
		Heading: "internal/server/server.go",
		Source: Source{URI: "file://internal/server/server.go", Path: "internal/server/server.go",
			CID:  "sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9",
			Span: "lines=120:188", StartLine: 120, EndLine: 188, Language: "go", Symbol: "Serve"},
		Code: "func Serve() {}\n"}
	p.Body = Fenced(p.Code, "go")
	return &Flow{ID: "pathonly-20260101T000000", Parts: []Part{p}}
}

// TestPathOnlyIsOneLine: a path-only part is a one-line mention in every
// format, carrying its path, span and symbol but not the part file's
// provenance (cid, uri), and it costs a few tokens, not the ~90 of a
// provenance comment.
func TestPathOnlyIsOneLine(t *testing.T) {
	c, err := tokens.ForEncoding(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Format]string{
		MDCtx: "## Evidence: internal/server/server.go <!-- span=lines=120:188; symbol=Serve; detail=path -->\n\n",
		Aptix: "Path only: internal/server/server.go lines 120-188 (Id: internal/server/server.go::@Serve; span=lines=120:188; symbol=Serve; detail=path)\n\n",
		Pack:  "  - {file: internal/server/server.go, lines: 120-188, symbol: Serve, id: 310_server_go_serve, detail: path}\n",
	}
	for _, format := range []Format{MDCtx, Aptix, Responses, Pack} {
		a := NewAssembler(c, nil)
		full := a.Assemble(pathOnlyFlow(Full), format)
		res := a.Assemble(pathOnlyFlow(PathOnly), format)
		if strings.Contains(res.Text, "sha256:") || strings.Contains(res.Text, "func Serve") {
			t.Errorf("%s: a path-only part carries its cid or content:\n%s", format, res.Text)
		}
		if format == Responses {
			if !strings.Contains(res.Text, `Path only: internal/server/server.go lines 120-188`) {
				t.Errorf("responses: no one-line mention:\n%s", res.Text)
			}
			continue
		}
		if !strings.Contains(res.Text, want[format]) {
			t.Errorf("%s: want the line\n%q\nin\n%s", format, want[format], res.Text)
		}
		if format == Pack {
			continue // the pack's part count is its mdctx block
		}
		line := c.Count(want[format])
		if res.PartTokens[0] != line || line > 40 {
			t.Errorf("%s: path-only part costs %d tokens, its line %d (full: %d)", format, res.PartTokens[0], line, full.PartTokens[0])
		}
		if strings.Contains(res.Text, "=== CHUNK") {
			t.Errorf("%s: a path-only part took a chunk number:\n%s", format, res.Text)
		}
	}
	// The old rendering: heading, the whole provenance comment, no body.
	old := "## Evidence: internal/server/server.go\n<!-- " + provenance(&pathOnlyFlow(PathOnly).Parts[0]) + " -->\n\n"
	a := NewAssembler(c, nil)
	if got, was := a.Assemble(pathOnlyFlow(PathOnly), MDCtx).PartTokens[0], c.Count(old); got*3 > was {
		t.Errorf("path-only mention costs %d tokens, the provenance comment %d: not a one-line mention", got, was)
	}
	t.Logf("path-only part: %d tokens; with the full provenance comment: %d", a.Assemble(pathOnlyFlow(PathOnly), MDCtx).PartTokens[0], c.Count(old))
}
