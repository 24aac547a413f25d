package send

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"testing/iotest"
)

// TestDropEventLines: sseLines with drop drops the event lines whatever the reads' sizes and
// however long a line is (longer than the reader's buffer), and keeps
// everything else byte for byte.
func TestDropEventLines(t *testing.T) {
	long := strings.Repeat("x", 40<<10)
	in := "event: response.created\ndata: {\"a\":1}\n\nevent: response.output_text.delta\ndata: {\"delta\":\"" + long + "\"}\n\n" +
		": comment\ndata: [DONE]\nevent: x" // no final newline
	want := "data: {\"a\":1}\n\ndata: {\"delta\":\"" + long + "\"}\n\n: comment\ndata: [DONE]\n"
	for _, r := range []func(io.Reader) io.Reader{
		func(r io.Reader) io.Reader { return r },
		iotest.OneByteReader,
		iotest.HalfReader,
	} {
		d := newSSELines(io.NopCloser(r(strings.NewReader(in))), true, nil)
		got, err := io.ReadAll(iotest.OneByteReader(d))
		if err != nil || string(got) != want {
			t.Fatalf("err %v, got %d bytes %q..., want %d bytes", err, len(got), truncate(string(got), 80), len(want))
		}
	}
}

// TestSeesDone tells a chat stream's data: [DONE] line, however it is read,
// and only that line.
func TestSeesDone(t *testing.T) {
	for _, c := range []struct {
		in   string
		done bool
	}{
		{"data: {\"a\":1}\n\ndata: [DONE]\n\n", true},
		{"data: {\"a\":1}\n\ndata:[DONE]\n", true},
		{"data: {\"a\":\"[DONE]\"}\n\n", false},
		{"data: {\"a\":1}\n\n", false},
		{": data: [DONE]\n\n", false},
	} {
		for _, r := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader} {
			var done atomic.Bool
			d := newSSELines(io.NopCloser(r(strings.NewReader(c.in))), false, &done)
			got, err := io.ReadAll(d)
			if err != nil || string(got) != c.in || done.Load() != c.done {
				t.Errorf("%q: err %v, kept %q, done %v", c.in, err, got, done.Load())
			}
		}
	}
}
