package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/evidence"
)

// benchModel is issue 5's benchmark flow: 500 evidence parts of Go source
// from GOROOT, about 400k tokens, in a workbench of 160x50.
func benchModel(b *testing.B) Model {
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
	for i := 0; i < 500; i++ {
		from := i * 3300
		for from > 0 && text[from-1] != '\n' {
			from--
		}
		chunk := text[from : from+3300]
		chunk = chunk[:strings.LastIndexByte(chunk, '\n')+1]
		p := filepath.Join(root, "src", fmt.Sprintf("f%03d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(chunk), 0o644)
	}
	e := evidence.NewEngine(root)
	e.Getenv = func(string) string { return "" }
	if err := e.Exec(context.Background(), []string{"flow", "new", "bench"}, io_discard{}); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		band, _ := evidence.ParseBand([]string{"critical", "supporting", "peripheral", "optional", "500-599"}[i/100])
		if _, err := e.Add(evidence.AddRequest{Selector: fmt.Sprintf("src/f%03d.go", i), Role: "evidence", Rank: -1, Band: band}); err != nil {
			b.Fatal(err)
		}
	}
	e.Reload()
	m := New(Options{Root: root, Engine: e, Styles: testStyles()})
	m = drive(b, m, m.loadCmd())
	m = send(b, m, tea.WindowSizeMsg{Width: 160, Height: 50})
	b.ReportMetric(float64(m.snap.Tokens), "tokens")
	return m
}

// BenchmarkKeyToFrame is a key press to the next frame: Update and View.
// A toggle shows its new state at once; the engine's reply follows (see
// BenchmarkToggleRoundTrip).
func BenchmarkKeyToFrame(b *testing.B) {
	m := benchModel(b)
	for _, k := range []struct {
		name string
		msg  tea.KeyMsg
	}{
		{"move", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")}},
		{"toggle", tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}},
		{"rank", tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("J")}},
	} {
		b.Run(k.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				next, _ := m.Update(k.msg)
				_ = next.(Model).View()
			}
		})
	}
}

// BenchmarkToggleRoundTrip is the whole toggle: the key, the engine's
// rename and re-assembly of 500 parts, the reply and the frame after it.
func BenchmarkToggleRoundTrip(b *testing.B) {
	m := benchModel(b)
	m = keys(b, m, "j")
	space := tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next, cmd := m.Update(space)
		m = next.(Model)
		msg := cmd()
		for {
			if batch, ok := msg.(tea.BatchMsg); ok {
				msg = batch[0]()
				continue
			}
			break
		}
		next, _ = m.Update(msg)
		m = next.(Model)
		_ = m.View()
	}
}

// BenchmarkFirstFrame opens the workbench on an existing index (set
// DOSSIER_BENCH_ROOT to a workspace indexed with `dossier index`, e.g. a
// copy of $(go env GOROOT)/src): the first snapshot and frame, without
// the background re-index.
func BenchmarkFirstFrame(b *testing.B) {
	root := os.Getenv("DOSSIER_BENCH_ROOT")
	if root == "" {
		b.Skip("set DOSSIER_BENCH_ROOT to an indexed workspace")
	}
	for i := 0; i < b.N; i++ {
		start := time.Now()
		m := New(Options{Root: root, Engine: benchEngine(b, root), Styles: testStyles()})
		m = drive(b, m, m.loadCmd())
		m = send(b, m, tea.WindowSizeMsg{Width: 160, Height: 50})
		_ = m.View()
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000, "ms/frame")
	}
}

// benchEngine is the engine on an indexed workspace, with a flow (one
// made when it has none).
func benchEngine(b *testing.B, root string) *evidence.Engine {
	b.Helper()
	e := evidence.NewEngine(root)
	e.Getenv = func(string) string { return "" }
	if _, err := e.Flow(); err != nil {
		if err := e.Exec(context.Background(), []string{"flow", "new", "bench"}, io_discard{}); err != nil {
			b.Fatal(err)
		}
	}
	return e
}
