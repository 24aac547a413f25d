package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/evidence"
)

// frameEvery is the shortest time between two frames of a streaming
// answer: deltas that arrive meanwhile are drawn together, so a long
// answer of many small deltas costs about 60 frames a second, not one a
// delta. The first delta after a pause is passed on at once.
const frameEvery = 16 * time.Millisecond

// stream is one send under way: Engine.Send runs in its own goroutine and
// its deltas gather in pending until the next read takes them.
type stream struct {
	id     int
	cancel context.CancelFunc
	notify chan struct{} // holds a token when pending has text
	done   chan struct{} // closed when Send returned

	mu      sync.Mutex
	pending strings.Builder
	turn    evidence.Turn
	err     error
	last    time.Time // of the last read that took text
}

type (
	// streamMsg carries the deltas that arrived since the last one.
	streamMsg struct {
		s    *stream
		text string
	}
	// streamDoneMsg says Send returned: rest is the text not yet drawn.
	streamDoneMsg struct {
		s    *stream
		rest string
		turn evidence.Turn
		err  error
	}
)

// newStream is a send about to start.
func newStream(id int) *stream {
	return &stream{id: id, notify: make(chan struct{}, 1), done: make(chan struct{})}
}

// start runs send in the background and reads its first message.
func (s *stream) start(send func(ctx context.Context, delta func(string)) (evidence.Turn, error)) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	return func() tea.Msg {
		go func() {
			defer close(s.done)
			defer func() {
				if p := recover(); p != nil {
					s.mu.Lock()
					s.err = fmt.Errorf("internal error while sending: %v", p)
					s.mu.Unlock()
				}
			}()
			turn, err := send(ctx, s.delta)
			s.mu.Lock()
			s.turn, s.err = turn, err
			s.mu.Unlock()
		}()
		return s.read()
	}
}

// delta is Send's onDelta: it never blocks the stream on the screen.
func (s *stream) delta(text string) {
	s.mu.Lock()
	s.pending.WriteString(text)
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// read waits for text or the end, keeping frames frameEvery apart.
func (s *stream) read() tea.Msg {
	select {
	case <-s.notify:
	case <-s.done:
		s.mu.Lock()
		defer s.mu.Unlock()
		rest := s.pending.String()
		s.pending.Reset()
		return streamDoneMsg{s: s, rest: rest, turn: s.turn, err: s.err}
	}
	s.mu.Lock()
	wait := frameEvery - time.Since(s.last)
	s.mu.Unlock()
	if wait > 0 {
		select {
		case <-time.After(wait):
		case <-s.done:
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	text := s.pending.String()
	s.pending.Reset()
	s.last = time.Now()
	return streamMsg{s: s, text: text}
}

// prepareSend assembles the request under the lock, and returns the
// function that sends it on an engine of its own with the workbench
// engine's settings: a send lasts as long as the answer, and holding the
// lock for it would stop every key meanwhile. The send writes only under
// the flow's turns/, which no other command touches.
//
// The send takes the config files as they are now (refreshSettings): an
// edited [llm] applies to the next send without a restart, and a config
// that no longer reads sends nothing. ask says the request waits for a
// yes: confirmation is on and the endpoint is off this machine.
func (r *runner) prepareSend(o evidence.SendOptions) (out *evidence.Outgoing, send func(context.Context, *evidence.Outgoing, func(string)) (evidence.Turn, error), ask bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, nil, false, errClosed
	}
	if _, err := r.refreshSettings(); err != nil {
		return nil, nil, false, err
	}
	if !r.unchanged() {
		r.e.Reload()
	}
	out, err = r.e.PrepareSend(o)
	if err != nil {
		return nil, nil, false, err
	}
	e := r.e
	c := evidence.NewEngine(e.Root)
	c.Getenv, c.Now, c.Model, c.DefaultBudget, c.DefaultFormat = e.Getenv, e.Now, e.Model, e.DefaultBudget, e.DefaultFormat
	c.Cwd, c.AllowSecrets, c.ExtraRoots, c.LLM = e.Cwd, e.AllowSecrets, e.ExtraRoots, e.LLM
	c.Stdin, c.Stderr = nil, nil
	return out, c.SendPrepared, r.confirm && !out.Loopback(), nil
}

// turns lists the flow's turns under the lock.
func (r *runner) turns() ([]evidence.Turn, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.unchanged() {
		r.e.Reload()
	}
	return r.e.Turns()
}

// answerRefs lists what an answer mentions, under the lock.
func (r *runner) answerRefs(text string) ([]evidence.AnswerRef, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.unchanged() {
		r.e.Reload()
	}
	return r.e.AnswerRefs(text)
}
