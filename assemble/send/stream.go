package send

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"sync/atomic"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// stallTimer cancels an attempt when the server goes quiet: no headers, or
// no byte of the stream, for timeout. Any byte counts, a keep-alive comment
// (": ping", which proxies and OpenRouter send while a model thinks)
// included: the server is there.
type stallTimer struct {
	timeout time.Duration
	timer   *time.Timer
	fired   atomic.Bool
}

// tick restarts the wait: bytes arrived.
func (t *stallTimer) tick() { t.timer.Reset(t.timeout) }

// checkStream refuses a 2xx answer that is not an event stream (a server
// that ignored "stream": true answers with one JSON object, which
// go-openai would read as an empty stream).
func (s *sender) checkStream() error {
	h := s.headers.header()
	if h == nil {
		return nil
	}
	ct := h.Get("Content-Type")
	if ct == "" {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "text/event-stream" {
		return nil
	}
	return &badStream{fmt.Sprintf("the server answered with %s, not an event stream (text/event-stream): does it stream on this endpoint?", ct)}
}

func (s *sender) responses(ctx context.Context, req Request) error {
	stream, err := s.client.CreateResponseStream(ctx, responsesRequest(s.cfg, req))
	if err != nil {
		return err
	}
	defer stream.Close()
	if err := s.checkStream(); err != nil {
		return err
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return errEnded
			}
			return err
		}
		switch ev.Type {
		case openai.ResponseStreamEventOutputTextDelta, openai.ResponseStreamEventRefusalDelta:
			s.delta(ev.Delta)
		case openai.ResponseStreamEventCreated, openai.ResponseStreamEventInProgress:
			s.response(ev.Response)
		case openai.ResponseStreamEventCompleted:
			s.response(ev.Response)
			s.res.Status = StatusCompleted
			s.fillText(ev.Response)
			return nil
		case openai.ResponseStreamEventIncomplete:
			s.response(ev.Response)
			s.res.Status, s.res.Reason = StatusIncomplete, "incomplete"
			if ev.Response != nil && ev.Response.IncompleteDetails != nil && ev.Response.IncompleteDetails.Reason != "" {
				s.res.Reason = ev.Response.IncompleteDetails.Reason
			}
			return nil
		case openai.ResponseStreamEventFailed:
			s.response(ev.Response)
			se := &streamError{message: "response.failed"}
			if ev.Response != nil && ev.Response.Error != nil {
				se.code, se.message = ev.Response.Error.Code, ev.Response.Error.Message
			}
			return se
		case "":
			// A server that names an error only in its event: line
			// (dropped, see dropEventLines) still says it in the data.
			if ev.Message == "" && ev.Error == nil {
				continue
			}
			fallthrough
		case openai.ResponseStreamEventError:
			se := &streamError{code: ev.Code, message: ev.Message}
			if ev.Error != nil && se.message == "" {
				se.code, se.message = ev.Error.Code, ev.Error.Message
			}
			if se.message == "" {
				se.message = "an error event without a message"
			}
			return se
		}
	}
}

// response takes the id, model and usage of a Responses response object.
func (s *sender) response(r *openai.CreateResponseResponse) {
	if r == nil {
		return
	}
	if r.ID != "" {
		s.res.ResponseID = r.ID
	}
	if r.Model != "" {
		s.res.Model = r.Model
	}
	if u := r.Usage; u != nil {
		s.res.HasUsage = true
		s.res.Usage = Usage{Input: u.InputTokens, Output: u.OutputTokens}
		if u.InputTokensDetails != nil {
			s.res.Usage.Cached = u.InputTokensDetails.CachedTokens
		}
		if u.OutputTokensDetails != nil {
			s.res.Usage.Reasoning = u.OutputTokensDetails.ReasoningTokens
		}
	}
}

// fillText takes the answer from the final response object when the
// server sent no deltas (some servers stream only the final event).
func (s *sender) fillText(r *openai.CreateResponseResponse) {
	if r == nil || s.text.Len() > 0 {
		return
	}
	s.delta(r.GetOutputText())
}

func (s *sender) chat(ctx context.Context, req Request) error {
	stream, err := s.client.CreateChatCompletionStream(ctx, chatRequest(s.cfg, req))
	if err != nil {
		return err
	}
	defer stream.Close()
	if err := s.checkStream(); err != nil {
		return err
	}
	finished := false
	for {
		chunk, err := stream.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			// [DONE] and a closed connection look the same here; a
			// finish_reason is what says the answer is whole.
			if !finished {
				return errEnded
			}
			return nil
		}
		if chunk.ID != "" {
			s.res.ResponseID = chunk.ID
		}
		if chunk.Model != "" {
			s.res.Model = chunk.Model
		}
		if u := chunk.Usage; u != nil {
			s.res.HasUsage = true
			s.res.Usage = Usage{Input: u.PromptTokens, Output: u.CompletionTokens}
			if u.PromptTokensDetails != nil {
				s.res.Usage.Cached = u.PromptTokensDetails.CachedTokens
			}
			if u.CompletionTokensDetails != nil {
				s.res.Usage.Reasoning = u.CompletionTokensDetails.ReasoningTokens
			}
		}
		for _, c := range chunk.Choices {
			if c.Index != 0 {
				continue
			}
			s.delta(c.Delta.Content)
			if c.Delta.Refusal != "" {
				s.delta(c.Delta.Refusal)
			}
			switch c.FinishReason {
			case "":
			case openai.FinishReasonLength:
				finished = true
				s.res.Status, s.res.Reason = StatusIncomplete, "max_output_tokens"
			case openai.FinishReasonContentFilter:
				finished = true
				s.res.Status, s.res.Reason = StatusIncomplete, "content_filter"
			default:
				finished = true
				s.res.Status = StatusCompleted
			}
		}
	}
}
