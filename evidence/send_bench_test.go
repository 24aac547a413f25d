package evidence

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/assemble/send/sendtest"
)

// BenchmarkPrepareSend is what `dossier send` costs before the first byte
// goes out, on issue 4's 500-part flow (~400k tokens) with ten earlier
// turns: read the flow and the turns, cut the three texts through the
// exit gate, redact the history, build the body.
func BenchmarkPrepareSend(b *testing.B) {
	e, _ := benchFlowDir(b)
	exec := func(args ...string) {
		if err := e.Exec(context.Background(), args, &strings.Builder{}); err != nil {
			b.Fatal(err)
		}
	}
	exec("evidence", "add", "--role", "user", "--text", "Why does the server hang up?")
	srv := sendtest.New(b, sendtest.Script{Text: strings.Repeat("An answer of some length. ", 400)})
	e.LLM = LLMConfig{Config: send.Config{BaseURL: srv.URL, Model: "gpt-4o-mini", MaxRetries: -1}}
	for i := 0; i < 10; i++ {
		if _, err := e.Send(context.Background(), SendOptions{FollowUp: fmt.Sprintf("Follow-up %d?", i)}, nil); err != nil {
			b.Fatal(err)
		}
	}
	e.SaveCache() // as the CLI does after a kept turn
	var body int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e2 := NewEngine(e.Root)
		e2.Getenv, e2.LLM = e.Getenv, e.LLM
		out, err := e2.PrepareSend(SendOptions{FollowUp: "And now?"})
		if err != nil {
			b.Fatal(err)
		}
		body = len(out.Body)
	}
	b.ReportMetric(float64(body), "body-bytes")
}
