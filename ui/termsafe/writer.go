package termsafe

import (
	"io"
	"os"
	"sync"
	"unicode/utf8"

	"golang.org/x/term"
)

// Writer escapes what passes through it as String does and writes the
// result to the writer under it. A rune split between two writes, and a
// carriage return that may be followed by a newline in the next write, are
// held back until the write that completes them or Flush. It is safe for
// concurrent use.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte
}

// NewWriter returns a Writer that escapes into w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it. It reports len(p) when the escaped text
// was written, even though that text is usually longer.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := p
	if len(w.pending) > 0 {
		buf = append(w.pending, p...)
		w.pending = nil
	}
	cut := len(buf) - holdBack(buf)
	if cut < len(buf) {
		w.pending = append([]byte(nil), buf[cut:]...)
	}
	if cut == 0 {
		return len(p), nil
	}
	if _, err := io.WriteString(w.w, String(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what Write held back, escaped as it stands.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) == 0 {
		return nil
	}
	s := String(string(w.pending))
	w.pending = nil
	_, err := io.WriteString(w.w, s)
	return err
}

// holdBack is how many bytes at the end of buf cannot be escaped yet: a
// trailing CR, or the start of a rune whose other bytes have not come.
func holdBack(buf []byte) int {
	n := len(buf)
	if n == 0 {
		return 0
	}
	if buf[n-1] == '\r' {
		return 1
	}
	for i := n - 1; i >= 0 && i >= n-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				return n - i
			}
			return 0
		}
	}
	return 0
}

// Raw returns the writer a *Writer escapes into, after flushing it, for
// output of dossier's own that must reach the terminal unescaped (a
// progress bar redrawing itself with CR); any other writer is returned as
// it is.
func Raw(w io.Writer) io.Writer {
	if tw, ok := w.(*Writer); ok {
		_ = tw.Flush()
		return tw.w
	}
	return w
}

// IsTerminal reports whether w is a file open on a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Wrap returns a Writer over w when tty(w) says w is a terminal, and w
// itself otherwise, so pipes and files get the bytes unchanged. A nil tty
// means IsTerminal.
func Wrap(w io.Writer, tty func(io.Writer) bool) io.Writer {
	if tty == nil {
		tty = IsTerminal
	}
	if tty(w) {
		return NewWriter(w)
	}
	return w
}
