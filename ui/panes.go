package ui

// listPane is the evidence list's state: the selected row and the first
// row on screen.
type listPane struct{ cursor, top int }

// move moves the selection by d rows among n, keeping it within the h
// rows on screen.
func (l *listPane) move(d, n, h int) {
	l.cursor += d
	l.clamp(n, h)
}

// clamp keeps the cursor on one of n rows and that row among the h shown.
func (l *listPane) clamp(n, h int) {
	l.cursor = max(0, min(n-1, l.cursor))
	h = max(1, h)
	if l.cursor < l.top {
		l.top = l.cursor
	}
	if l.cursor >= l.top+h {
		l.top = l.cursor - h + 1
	}
	l.top = max(0, min(l.top, max(0, n-1)))
}

// at is the selected row.
func (l listPane) at(rows []row) (row, bool) {
	if l.cursor < 0 || l.cursor >= len(rows) {
		return row{}, false
	}
	return rows[l.cursor], true
}

// scroller is the state of a scrolling text pane (preview, assembled
// prompt): its first visible line.
type scroller struct{ top int }

// scroll moves by d lines, staying within 0..limit.
func (s *scroller) scroll(d, limit int) { s.top = max(0, min(s.top+d, limit)) }
