package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dossierhq/dossier/index"
)

// TestProgressBar checks the terminal's bar: redrawn in place, throttled,
// drawn at the end of the count, and cleared by finish.
func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, tty: true, start: time.Now(), last: time.Now(), cols: func() int { return 200 }}
	p.update(index.Progress{Done: 0, Total: -1})
	p.update(index.Progress{Done: 10, Total: -1}) // within the redraw interval: not drawn
	p.last = time.Now().Add(-time.Second)
	p.update(index.Progress{Done: 500, Total: 1000})
	p.update(index.Progress{Done: 1000, Total: 1000}) // the end is always drawn
	p.finish()
	frames := strings.Split(b.String(), "\r")[1:]
	if len(frames) != 4 || !strings.HasPrefix(frames[0], "indexing  0 files") || !strings.Contains(frames[1], "(500/1000 files") ||
		!strings.Contains(frames[2], "100% |"+strings.Repeat("█", 30)+"|") || frames[3] != "\x1b[K" {
		t.Fatalf("frames %q", frames)
	}
	for _, f := range frames {
		if !strings.HasSuffix(f, "\x1b[K") || strings.Contains(f, "\n") {
			t.Errorf("frame %q does not redraw its line in place", f)
		}
	}
	b.Reset()
	p.finish()
	if b.Len() != 0 {
		t.Errorf("a second finish wrote %q", b.String())
	}
}

func TestBarLine(t *testing.T) {
	for _, tc := range []struct {
		ev      index.Progress
		elapsed time.Duration
		want    string
	}{
		{index.Progress{Done: 0, Total: -1}, 0, "indexing  0 files (0 files/s) [0s]"},
		{index.Progress{Done: 120, Total: -1}, 4 * time.Second, "indexing  120 files (30 files/s) [4s]"},
		{index.Progress{Done: 0, Total: 1000}, time.Second, "indexing   0% |" + strings.Repeat(" ", 30) + "| (0/1000 files, 0 files/s) [1s:?]"},
		{index.Progress{Done: 500, Total: 1000}, 10 * time.Second, "indexing  50% |" + strings.Repeat("█", 15) + strings.Repeat(" ", 15) + "| (500/1000 files, 50 files/s) [10s:10s]"},
		{index.Progress{Done: 1200, Total: 1000}, 10 * time.Second, "indexing 100% |" + strings.Repeat("█", 30) + "| (1000/1000 files, 120 files/s) [10s:0s]"},
	} {
		if got := barLine(tc.ev, tc.elapsed, 200); got != tc.want {
			t.Errorf("barLine(%+v, %s) = %q, want %q", tc.ev, tc.elapsed, got, tc.want)
		}
	}
}

// TestBarLineFitsTheTerminal: the line never wraps, since "\r" goes back
// only to the start of a wrapped line's last row and every redraw would
// leave a row behind (an 80-column terminal got 83-column lines). The bar
// narrows first, and goes only when nothing else fits.
func TestBarLineFitsTheTerminal(t *testing.T) {
	big := index.Progress{Done: 12345, Total: 95000}
	for _, cols := range []int{0, 20, 40, 60, 80, 120} {
		for _, ev := range []index.Progress{big, {Done: 95000, Total: 95000}, {Done: 123456, Total: -1}} {
			line := barLine(ev, 83*time.Second, cols)
			limit := cols - 1
			if cols == 0 {
				limit = 79 // unknown: 80 columns
			}
			if n := utf8.RuneCountInString(line); n > limit {
				t.Errorf("cols %d: %d columns: %q", cols, n, line)
			}
		}
	}
	if line := barLine(big, 83*time.Second, 80); !strings.Contains(line, "|█") || !strings.Contains(line, "(12345/95000 files") {
		t.Errorf("80 columns lost the bar or the count: %q", line)
	}
	if line := barLine(big, 83*time.Second, 200); !strings.Contains(line, "|"+strings.Repeat("█", 3)+strings.Repeat(" ", 27)+"|") {
		t.Errorf("a wide terminal's bar is not 30 cells: %q", line)
	}
}
