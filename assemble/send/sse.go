package send

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync/atomic"
)

// sseLines watches an event stream line by line on its way to go-openai.
// With drop, it hides the "event:" lines of a Responses stream: go-openai's
// SSE reader keeps every line that is not "data:" in an error buffer until
// the stream ends, which for a 100k-token answer is ~1 MB of
// "event: response.output_text.delta"; the data lines carry the same name
// in their "type", so nothing is lost. done, when set, learns of a
// "data: [DONE]" line: go-openai ends a chat stream with io.EOF both there
// and when the connection just closes, and only [DONE] says it is whole.
type sseLines struct {
	r       *bufio.Reader
	body    io.ReadCloser
	drop    bool
	done    *atomic.Bool
	pending []byte // the rest of a kept line, in r's buffer
	start   bool   // the next byte begins a line
	skip    bool   // the current line is dropped
	err     error
}

var (
	eventPrefix = []byte("event:")
	dataPrefix  = []byte("data:")
	doneData    = []byte("[DONE]")
)

func newSSELines(body io.ReadCloser, drop bool, done *atomic.Bool) *sseLines {
	return &sseLines{r: bufio.NewReaderSize(body, 16<<10), body: body, drop: drop, done: done, start: true}
}

func (d *sseLines) Read(p []byte) (int, error) {
	for len(d.pending) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		line, err := d.r.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			d.err = err
		}
		if d.start {
			d.skip = d.drop && bytes.HasPrefix(line, eventPrefix)
			if d.done != nil && err != bufio.ErrBufferFull && bytes.HasPrefix(line, dataPrefix) &&
				bytes.Equal(bytes.TrimSpace(line[len(dataPrefix):]), doneData) {
				d.done.Store(true)
			}
		}
		d.start = err != bufio.ErrBufferFull
		if !d.skip {
			d.pending = line
		}
	}
	n := copy(p, d.pending)
	d.pending = d.pending[n:]
	return n, nil
}

func (d *sseLines) Close() error { return d.body.Close() }

// wrapStream makes a successful response's body tell onRead of each read
// that got bytes (the stall timer), drops the event lines of a Responses
// event stream and tells done of a chat stream's [DONE].
func wrapStream(r *http.Request, resp *http.Response, onRead func(), done *atomic.Bool) {
	if onRead != nil {
		resp.Body = &progress{body: resp.Body, onRead: onRead}
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err != nil || mt != "text/event-stream" {
		return
	}
	if strings.HasSuffix(r.URL.Path, "/responses") {
		resp.Body = newSSELines(resp.Body, true, nil)
	} else {
		resp.Body = newSSELines(resp.Body, false, done)
	}
}

// progress calls onRead after every read that got bytes.
type progress struct {
	body   io.ReadCloser
	onRead func()
}

func (p *progress) Read(b []byte) (int, error) {
	n, err := p.body.Read(b)
	if n > 0 {
		p.onRead()
	}
	return n, err
}

func (p *progress) Close() error { return p.body.Close() }
