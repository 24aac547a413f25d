package ui

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/assemble/send/sendtest"
)

// longAnswer is about n tokens of Markdown answer (about 4 bytes a token):
// headings, prose, lists and fenced Go code, as a long review reads.
func longAnswer(tokens int) string {
	var b strings.Builder
	for i := 0; b.Len() < tokens*4; i++ {
		fmt.Fprintf(&b, "## Step %d\n\nThe parser in `parser/parse.go` drops empty fields when the line ends with a separator; "+
			"**Parse** should keep them, and the caller in render/render.go:%d must skip them instead.\n\n"+
			"- keep `strings.Split`\n- add a test for `a,,b`\n\n```go\nfunc Parse%d(line string) []string {\n\treturn strings.Split(line, \",\")\n}\n```\n\n", i, i%40+1, i)
	}
	return b.String()
}

// streamingModel is a workbench whose answer pane is streaming, with
// before already on screen.
func streamingModel(b *testing.B, before string) (Model, *stream) {
	b.Helper()
	m, _ := newTestModel(b, nil)
	m = send(b, m, tea.WindowSizeMsg{Width: 160, Height: 50})
	s := newStream(1)
	m.ans.open, m.ans.live, m.ans.text, m.ans.follow = true, s, newLiveText(m.answerWidth()), true
	m.ans.text.append(before)
	return m, s
}

// BenchmarkAnswerDeltaToFrame is a batch of answer text arriving at
// Update to the frame that shows it (Update and View), at the start of an
// answer and at the end of a 100k-token one: the cost of a frame must not
// grow with the answer. Deltas are words, with a paragraph break every
// 80 (about 500 bytes, as Markdown answers go); "longline" is the worst
// case, a 64 kB line with no break still being written, which is wrapped
// again on every frame.
func BenchmarkAnswerDeltaToFrame(b *testing.B) {
	for _, tc := range []struct {
		name     string
		before   string
		newlines bool
	}{{"empty", "", true}, {"after100k", longAnswer(100_000), true}, {"longline", strings.Repeat("word ", 64<<10/5), false}} {
		b.Run(tc.name, func(b *testing.B) {
			m, s := streamingModel(b, tc.before)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				delta := fmt.Sprintf("w%d ", i)
				if tc.newlines && i%80 == 79 {
					delta += "\n\n"
				}
				next, _ := m.Update(streamMsg{s: s, text: delta})
				m = next.(Model)
				if v := m.View(); !strings.Contains(v, fmt.Sprintf("w%d", i)) {
					b.Fatalf("the delta is not on screen:\n%s", v)
				}
			}
		})
	}
}

// BenchmarkSendFirstByteToScreen is end to end: from the fake server
// writing the answer's first chunk to the workbench's frame showing it,
// through HTTP, SSE parsing, the engine, the stream's coalescing, Update
// and View. Each iteration is one send (turn files written and all).
func BenchmarkSendFirstByteToScreen(b *testing.B) {
	var flushed atomic.Int64
	srv := sendtest.New(b, sendtest.Script{Chunks: []string{"Ωmega first ", "and the rest."},
		OnChunk: func(i int) {
			if i == 0 {
				flushed.Store(time.Now().UnixNano())
			}
		}})
	m := sendModel(b, srv)
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		next, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("S")})
		m = next.(Model)
		next, cmd = m.Update(findMsg[sendReadyMsg](b, cmd))
		m = next.(Model)
		first := findMsg[streamMsg](b, cmd)
		next, read := m.Update(first)
		m = next.(Model)
		if !strings.Contains(m.View(), "Ωmega") {
			b.Fatal("the first chunk is not on screen")
		}
		total += time.Duration(time.Now().UnixNano() - flushed.Load())
		b.StopTimer()
		m = drive(b, m, read)
		m.ans.open = false
		b.StartTimer()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-first-byte-to-frame")
}

// BenchmarkStreamCoalescing feeds 25,000 deltas (a 100k-token answer of
// 4-byte deltas), one every 40 µs (25,000 tokens a second, a replay or a
// very fast local model; one second in all), and counts the frames the
// workbench draws for them: one a delta would be 25,000.
func BenchmarkStreamCoalescing(b *testing.B) {
	const deltas = 25_000
	for i := 0; i < b.N; i++ {
		start := time.Now()
		s := newStream(1)
		done := make(chan struct{})
		frames, got := 0, 0
		go func() {
			for j := 0; j < deltas; j++ {
				for time.Since(start) < time.Duration(j)*40*time.Microsecond {
					runtime.Gosched()
				}
				s.delta("abcd")
			}
			close(done)
		}()
		for got < deltas*4 {
			msg := s.read()
			if sm, ok := msg.(streamMsg); ok {
				frames++
				got += len(sm.text)
			}
		}
		<-done
		b.ReportMetric(float64(frames), "frames/25k-deltas")
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms-stream")
	}
}

// BenchmarkAnswerMemory is the heap a 100k-token answer takes in the
// pane: streamed in (wrapped lines), then rendered by glamour and kept
// as a finished turn.
func BenchmarkAnswerMemory(b *testing.B) {
	text := longAnswer(100_000)
	for i := 0; i < b.N; i++ {
		m, s := streamingModel(b, "")
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		for off := 0; off < len(text); off += 256 { // 16ms of a fast model's deltas
			next, _ := m.Update(streamMsg{s: s, text: text[off:min(len(text), off+256)]})
			m = next.(Model)
		}
		_ = m.View()
		runtime.GC()
		var streamed runtime.MemStats
		runtime.ReadMemStats(&streamed)
		start := time.Now()
		lines := renderMarkdown(text, m.answerWidth(), "dark", m.styles.Renderer.ColorProfile())
		renderTime := time.Since(start)
		runtime.GC()
		var rendered runtime.MemStats
		runtime.ReadMemStats(&rendered)
		b.ReportMetric(float64(len(text))/1e3, "kB-answer")
		b.ReportMetric(float64(int64(streamed.HeapAlloc)-int64(before.HeapAlloc))/1e6, "MB-heap-streamed")
		b.ReportMetric(float64(int64(rendered.HeapAlloc)-int64(before.HeapAlloc))/1e6, "MB-heap-with-glamour")
		b.ReportMetric(float64(renderTime.Milliseconds()), "ms-glamour-render")
		b.ReportMetric(float64(rendered.HeapAlloc)/1e6, "MB-heap-total")
		runtime.KeepAlive(m)
		runtime.KeepAlive(lines)
	}
}
