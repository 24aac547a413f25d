package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/themes"
	"github.com/dossierhq/dossier/ui/termsafe"
)

// listPane is the evidence list's state: the selected row and the first
// row on screen.
type listPane struct{ cursor, top int }

// move moves the selection by d rows among n, keeping it within the h
// rows on screen.
func (l *listPane) move(d, n, h int) {
	l.cursor += d
	l.clamp(n, h)
}

// clamp keeps the cursor on one of n rows and that row among the h shown,
// with no room left below the last row while rows above are out of sight:
// a window that grows (or a list that shrinks) brings them back.
func (l *listPane) clamp(n, h int) {
	l.cursor = max(0, min(n-1, l.cursor))
	h = max(1, h)
	if l.cursor < l.top {
		l.top = l.cursor
	}
	if l.cursor >= l.top+h {
		l.top = l.cursor - h + 1
	}
	l.top = max(0, min(l.top, n-h))
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

// view draws the list: the rows on screen, each band named on its first
// row, or why there is no flow.
func (l listPane) view(st themes.Styles, s snapshot, w, h int, focused bool) string {
	if s.Err != "" {
		msg := lipgloss.NewStyle().Width(max(10, w-2)).Render(termsafe.String(s.Err) + "\n\nPress : and run `flow new NAME` or `flow use ID`.")
		return frame(st, "Evidence", msg, w, h, focused)
	}
	var lines []string
	band := ""
	rows := s.Rows
	end := min(len(rows), l.top+max(1, h-2))
	for i := l.top; i < end; i++ {
		r := rows[i]
		// Parts are grouped by seed 003's rank bands: the band's name
		// heads its first row.
		label := ""
		if r.Band != band {
			label = r.Band
		}
		band = r.Band
		lines = append(lines, rowView(st, r, label, i == l.cursor, w-2))
	}
	if len(rows) == 0 {
		lines = append(lines, st.RowMuted.Render("no parts yet: /request TEXT to ask, / to search, : for commands"))
	}
	title := fmt.Sprintf("Evidence %d/%d", activeCount(rows), len(rows))
	return frame(st, title, strings.Join(lines, "\n"), w, h, focused)
}

func activeCount(rows []row) int {
	n := 0
	for _, r := range rows {
		if r.Active {
			n++
		}
	}
	return n
}

// rowView is one line of the evidence list: selection mark, state box,
// id, flags, tokens, band, source or search mark.
func rowView(st themes.Styles, r row, band string, selected bool, w int) string {
	box := st.StateActive.Render("[x]")
	if !r.Active {
		box = st.StateSkipped.Render("[ ]")
	}
	flags, n := "", 0
	for _, s := range r.States {
		before := flags
		switch s {
		case "link":
			flags += st.StateLink.Render("L")
		case "pinned":
			flags += st.StatePinned.Render("P")
		case "moved", "changed", "lost", "edited", "source gone", "broken", "damaged", "not UTF-8":
			flags += st.StateStale.Render("!")
		case "outline", "path":
			flags += st.StateSkipped.Render("o")
		}
		if flags != before {
			n++
		}
	}
	flags += strings.Repeat(" ", max(0, 3-n))
	mark := "  "
	if selected {
		mark = "▸ "
	}
	tok := st.Tokens.Render(fmt.Sprintf("%6d", r.Tokens))
	where := termsafe.Line(r.Source)
	if r.Found != "" {
		where = termsafe.Line(r.Found)
	}
	if len(band) > 4 {
		band = band[:4]
	}
	// Fixed columns take 26 cells; the id gets up to 28 and the source
	// what is left. A narrow pane drops the band and role columns first so
	// the tokens stay visible.
	bandCol, roleCol, fixed := st.BandHeader.Render(fmt.Sprintf("%-4s", band))+" ", " "+st.Role.Render(abbrevRole(r.Role)), 26
	if w < 40 {
		bandCol, roleCol, fixed = "", "", 17
	}
	idW := min(28, max(4, w-fixed))
	// Cut and padded by cells: an id can hold wide or escaped runes.
	id := fit(termsafe.Line(r.ID), idW)
	line := fmt.Sprintf("%s%s%s %s %s%s%s %s", mark, bandCol, box, id, flags, tok, roleCol, st.Source.Render(where))
	line = fit(line, w)
	switch {
	case selected:
		return st.RowSelected.Render(ansi.Strip(line))
	case !r.Active:
		return st.RowMuted.Render(ansi.Strip(line))
	}
	return line
}

func abbrevRole(role string) string {
	switch role {
	case "system":
		return "sys"
	case "user":
		return "usr"
	}
	return "ev "
}

// meterView is the budget meter: a bar, the per-role breakdown, the count
// kind, and what toggling the selected part would change.
func meterView(st themes.Styles, s snapshot, sel row, selected bool, w, h int) string {
	inner := max(10, w-2)
	used := s.Tokens
	pct := 0
	if s.Budget > 0 {
		pct = used * 100 / s.Budget
	}
	barW := max(5, inner-12)
	fill := min(barW, barW*pct/100)
	style := st.MeterOK
	switch {
	case pct >= 100:
		style = st.MeterOver
	case pct >= 80:
		style = st.MeterWarn
	}
	bar := style.Render(strings.Repeat("█", fill)) + st.MeterEmpty.Render(strings.Repeat("░", barW-fill))
	kind := "exact " + s.Encoding
	if !s.Exact {
		kind = "estimate (bytes/4)"
	}
	lines := []string{
		fmt.Sprintf("%s %3d%%", bar, pct),
		fmt.Sprintf("%d of %d tokens · %s", used, s.Budget, kind),
		fmt.Sprintf("system %d · user %d · evidence %d · framing %d", s.ByRole[assemble.System], s.ByRole[assemble.User], s.ByRole[assemble.Evidence], s.Frame),
	}
	if r := sel; selected {
		if r.Active {
			lines = append(lines, fmt.Sprintf("space on %s: −%d → %d", termsafe.Line(r.ID), r.Tokens, used-r.Tokens))
		} else {
			lines = append(lines, fmt.Sprintf("space on %s: +%d → %d", termsafe.Line(r.ID), r.Tokens, used+r.Tokens))
		}
	}
	return frame(st, "Budget", strings.Join(lines, "\n"), w, h, false)
}
