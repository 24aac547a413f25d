package send

import (
	"bufio"
	"bytes"
	"io"
	"mime"
	"net/http"
	"strings"
)

// dropEventLines hides the "event:" lines of a Responses stream from
// go-openai. Its SSE reader keeps every line that is not "data:" in an
// error buffer until the stream ends, which for a 100k-token answer is
// ~1 MB of "event: response.output_text.delta"; the data lines carry the
// same name in their "type", so nothing is lost.
type dropEventLines struct {
	r       *bufio.Reader
	body    io.ReadCloser
	pending []byte // the rest of a kept line, in r's buffer
	start   bool   // the next byte begins a line
	skip    bool   // the current line is dropped
	err     error
}

var eventPrefix = []byte("event:")

func newDropEventLines(body io.ReadCloser) *dropEventLines {
	return &dropEventLines{r: bufio.NewReaderSize(body, 16<<10), body: body, start: true}
}

func (d *dropEventLines) Read(p []byte) (int, error) {
	for len(d.pending) == 0 {
		if d.err != nil {
			return 0, d.err
		}
		line, err := d.r.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			d.err = err
		}
		if d.start {
			d.skip = bytes.HasPrefix(line, eventPrefix)
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

func (d *dropEventLines) Close() error { return d.body.Close() }

// wrapStream makes a successful response's body tell onRead of each read
// that got bytes (the stall timer), and drops the event lines of a
// Responses event stream.
func wrapStream(r *http.Request, resp *http.Response, onRead func()) {
	if onRead != nil {
		resp.Body = &progress{body: resp.Body, onRead: onRead}
	}
	if !strings.HasSuffix(r.URL.Path, "/responses") {
		return
	}
	if mt, _, err := mime.ParseMediaType(resp.Header.Get("Content-Type")); err == nil && mt == "text/event-stream" {
		resp.Body = newDropEventLines(resp.Body)
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
