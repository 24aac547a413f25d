package send_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/assemble/send/sendtest"
)

// BenchmarkFirstDelta times the trip of the first answer text from the
// moment the server starts writing its event to onDelta: framing, flush,
// loopback, go-openai's SSE reader, JSON decoding and the sender.
//
//	go test ./assemble/send -run '^$' -bench FirstDelta -benchtime 2000x
func BenchmarkFirstDelta(b *testing.B) {
	for _, api := range apis {
		b.Run(string(api), func(b *testing.B) {
			var written atomic.Int64 // the server's goroutine sets it
			srv := sendtest.New(b, sendtest.Script{Chunks: []string{"Hi"}, OnChunk: func(int) { written.Store(time.Now().UnixNano()) }})
			cfg := config(srv, api)
			var total time.Duration
			b.ResetTimer()
			for range b.N {
				var got time.Time
				_, err := send.Stream(context.Background(), cfg, request, func(string) {
					if got.IsZero() {
						got = time.Now()
					}
				})
				if err != nil {
					b.Fatal(err)
				}
				total += got.Sub(time.Unix(0, written.Load())) // the server stored it before writing what onDelta read
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs-to-first-delta")
		})
	}
}

// BenchmarkLongAnswer streams a 100k-token answer (~400 KB in 25,000
// deltas) end to end and reports the bytes the client allocates per
// answer, its peak heap above the start (sampled every 1,000 deltas: live
// data and garbage not yet collected) and the live heap when the last delta
// arrives (after a GC: what the stream holds, the answer included). The server replays a
// recording of sendtest's stream, flushing each event, so its own JSON
// encoding does not count.
//
//	go test ./assemble/send -run '^$' -bench LongAnswer -benchtime 20x
func BenchmarkLongAnswer(b *testing.B) {
	const deltas = 25000
	chunks := make([]string, deltas)
	for i := range chunks {
		chunks[i] = "token text abcd " // 16 bytes, about 4 tokens
	}
	for _, api := range apis {
		b.Run(string(api), func(b *testing.B) {
			events := recordStream(b, api, chunks)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				rc := http.NewResponseController(w)
				for _, ev := range events {
					w.Write(ev)
					rc.Flush()
				}
			}))
			defer srv.Close()
			cfg := send.Config{BaseURL: srv.URL + "/v1", Model: "gpt-test", API: api, Timeout: 10 * time.Second}
			var peak, live uint64
			var ms runtime.MemStats
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				base := ms.HeapAlloc
				n := 0
				res, err := send.Stream(context.Background(), cfg, request, func(string) {
					if n++; n%1000 == 0 {
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapAlloc-min(base, ms.HeapAlloc))
					}
					if n == deltas {
						runtime.GC()
						runtime.ReadMemStats(&ms)
						live = max(live, ms.HeapAlloc-min(base, ms.HeapAlloc))
					}
				})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Text) != 16*deltas {
					b.Fatalf("text is %d bytes", len(res.Text))
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(peak), "peak-heap-B")
			b.ReportMetric(float64(live), "live-heap-end-B")
			b.ReportMetric(float64(16*deltas), "answer-B")
		})
	}
}

// recordStream is sendtest's stream for chunks, split into its events.
func recordStream(b *testing.B, api send.API, chunks []string) [][]byte {
	srv := sendtest.New(b, sendtest.Script{Chunks: chunks})
	path, body := "/responses", `{"model":"gpt-test","stream":true}`
	if api == send.Chat {
		path = "/chat/completions"
	}
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	var events [][]byte
	for ev := range bytes.SplitAfterSeq(raw, []byte("\n\n")) {
		events = append(events, ev)
	}
	return events
}
