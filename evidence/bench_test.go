package evidence

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/assemble"
)

// benchFlowDir writes issue 4's benchmark flow to disk: 500 evidence part
// files of Go source from GOROOT, about 400k tokens.
func benchFlowDir(b *testing.B) (*Engine, string) {
	b.Helper()
	var src strings.Builder
	for _, d := range []string{"net/http", "net", "crypto/tls", "go/types"} {
		files, _ := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", d, "*.go"))
		for _, f := range files {
			raw, _ := os.ReadFile(f)
			src.Write(raw)
		}
		if src.Len() > 2<<20 {
			break
		}
	}
	if src.Len() < 2<<20 {
		b.Skip("GOROOT/src is not available")
	}
	text := src.String()
	root := b.TempDir()
	b.Setenv(FlowDirEnv, "")
	f, err := Create(root, "bench", "fix", "gpt-4o", time.Unix(0, 0))
	if err != nil {
		b.Fatal(err)
	}
	const size = 3300
	for i := 0; i < 500; i++ {
		from := i * size
		for from > 0 && text[from-1] != '\n' {
			from--
		}
		code := text[from : from+size]
		code = code[:strings.LastIndexByte(code, '\n')+1]
		src := assemble.Source{URI: "file://net/http/f.go", Path: "net/http/f.go", CID: CID([]byte(code)), Span: "lines=1:80", Language: "go"}
		name := PartName{Rank: FormatRank(100 + i*399/500), Kind: fmt.Sprintf("part%d", i), Role: assemble.Evidence}
		if err := os.WriteFile(filepath.Join(f.partDir(assemble.Evidence), name.String()), []byte(renderEvidence(src, code)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	e := NewEngine(root)
	e.Getenv = func(string) string { return "" }
	return e, f.Dir
}

// BenchmarkEngineAssemble is what every CLI command costs: read the flow
// directory (500 part files) and assemble it with token counts from the
// warm cache file.
func BenchmarkEngineAssemble(b *testing.B) {
	e, _ := benchFlowDir(b)
	res, err := e.Build()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(res.Tokens), "tokens")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e2 := NewEngine(e.Root)
		e2.Getenv = e.Getenv
		if _, _, err := e2.Assemble(assemble.MDCtx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEngineToggle is the workbench's path: rename one part file to
// or from .skip and assemble again.
func BenchmarkEngineToggle(b *testing.B) {
	e, _ := benchFlowDir(b)
	f, err := e.Flow()
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := e.Assemble(assemble.MDCtx); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := f.Parts[i%len(f.Parts)]
		to := assemble.Skipped
		if !p.Active() {
			to = assemble.Active
		}
		if _, err := f.SetStatus(p, to); err != nil {
			b.Fatal(err)
		}
		if _, _, err := e.Assemble(assemble.MDCtx); err != nil {
			b.Fatal(err)
		}
	}
}
