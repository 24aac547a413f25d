package assemble

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble/tokens"
)

// benchFlow is issue 4's benchmark flow: 500 evidence parts of Go source
// from GOROOT, about 400k tokens in all.
func benchFlow(b *testing.B) *Flow {
	b.Helper()
	var files []string
	for _, d := range []string{"net/http", "net", "crypto/tls", "go/types"} {
		fs, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", d, "*.go"))
		files = append(files, fs...)
	}
	var src strings.Builder
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		src.Write(raw)
		if src.Len() > 3<<20 {
			break
		}
	}
	if src.Len() < 2<<20 {
		b.Skip("GOROOT/src is not available")
	}
	text := src.String()
	f := &Flow{ID: "bench-20260101T000000", Mode: "fix"}
	f.Parts = append(f.Parts,
		Part{Rank: "000", Kind: "policy", Role: System, File: "ctx/000_policy.system.md", CID: "sha256:s", Status: Active, Body: "Answer with a patch.\n"},
		Part{Rank: "010", Kind: "request", Role: User, File: "ctx/010_request.user.md", CID: "sha256:u", Status: Active, Body: "Fix the server's keep-alive handling.\n"})
	const size = 3300 // bytes: about 800 tokens of Go
	for i := 0; i < 500; i++ {
		from := i * size
		for from > 0 && text[from-1] != '\n' {
			from--
		}
		code := text[from : from+size]
		code = code[:strings.LastIndexByte(code, '\n')+1]
		p := Part{Rank: fmt.Sprintf("%03d", 100+i*399/500), Kind: fmt.Sprintf("part%d", i), Role: Evidence, Status: Active,
			CID: fmt.Sprintf("sha256:%064d", i), Bytes: len(code), Heading: "net/http/f.go", Code: code,
			Source: Source{Path: "net/http/f.go", URI: "file://net/http/f.go", Span: "lines=1:80", StartLine: 1, EndLine: 80, Language: "go"}}
		p.File = "ctx/evidence/" + p.Rank + "_" + p.Kind + ".evidence.md"
		p.Body = "```go\n" + code + "```"
		f.Parts = append(f.Parts, p)
	}
	return f
}

// BenchmarkAssembleWarm is a full assembly by a new Assembler whose token
// counts all come from a warm cache: every block is rendered and hashed.
func BenchmarkAssembleWarm(b *testing.B) {
	f := benchFlow(b)
	c, _ := tokens.ForEncoding(tokens.O200kBase)
	cache := tokens.NewCache()
	clean := NewCleanSet(nil) // as the engine shares it (and keeps it in .dossier/)
	a := NewAssembler(c, cache)
	a.SetClean(clean)
	res := a.Assemble(f, MDCtx)
	b.ReportMetric(float64(res.Tokens), "tokens")
	for _, format := range []Format{MDCtx, Aptix, Responses} {
		NewAssembler(c, cache).Assemble(f, format)
		b.Run(string(format), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				a := NewAssembler(c, cache)
				a.SetClean(clean)
				a.Assemble(f, format)
			}
		})
	}
}

// BenchmarkReassembleToggle is the live path: one part toggled, then the
// whole prompt assembled again by the same Assembler.
func BenchmarkReassembleToggle(b *testing.B) {
	f := benchFlow(b)
	c, _ := tokens.ForEncoding(tokens.O200kBase)
	for _, format := range []Format{MDCtx, Aptix, Responses} {
		a := NewAssembler(c, nil)
		a.Assemble(f, format)
		b.Run(string(format), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p := &f.Parts[2+i%500]
				if p.Status == Active {
					p.Status = Skipped
				} else {
					p.Status = Active
				}
				a.Assemble(f, format)
			}
		})
	}
}

// BenchmarkAssembleCold counts every token from scratch: the first
// assembly of a flow nobody has counted before.
func BenchmarkAssembleCold(b *testing.B) {
	f := benchFlow(b)
	c, _ := tokens.ForEncoding(tokens.O200kBase)
	for i := 0; i < b.N; i++ {
		NewAssembler(c, nil).Assemble(f, MDCtx)
	}
}
