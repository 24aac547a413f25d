package send

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestDropEventLines drops the event lines whatever the reads' sizes and
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
		d := newDropEventLines(io.NopCloser(r(strings.NewReader(in))))
		got, err := io.ReadAll(iotest.OneByteReader(d))
		if err != nil || string(got) != want {
			t.Fatalf("err %v, got %d bytes %q..., want %d bytes", err, len(got), truncate(string(got), 80), len(want))
		}
	}
}
