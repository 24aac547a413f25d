package ui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/evidence"
	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets"
	"github.com/dossierhq/dossier/ui/termsafe"
)

// SearchFunc answers one query (hybrid search over the workspace index),
// keeping only the results on g's graph walks when g is not empty; a
// query with no words then lists the walks' chunks.
type SearchFunc func(ctx context.Context, q search.Query, g search.Graph) (search.Response, error)

// debounceDelay is how long typing must pause before a search runs.
const debounceDelay = 150 * time.Millisecond

// searchOverlay is the '/' overlay: a query line, live results, a preview
// of the selected result, and adding one or many at a rank band.
type searchOverlay struct {
	input    textinput.Model
	results  []search.Result
	previews []string
	cursor   int
	marked   map[int]bool
	band     int // index into evidence.Bands, 1 (critical) by default
	seq      int
	gen      int // Model.indexGen when the results were asked for
	note     string
	err      string
	// cancel ends the search in flight: a newer query, or closing the
	// overlay, makes its answer stale, and a search waiting on a slow
	// embeddings endpoint should not hold up the next one.
	cancel context.CancelFunc
}

type (
	searchTickMsg   struct{ seq int }
	searchResultMsg struct {
		seq      int
		gen      int
		resp     search.Response
		previews []string // each result's lines, read in the command
		err      error
	}
)

func newSearchOverlay() searchOverlay {
	ti := textinput.New()
	ti.Prompt = "search: "
	ti.Placeholder = "words, Symbol, type:function path:internal/ route:NAME table:NAME"
	return searchOverlay{input: ti, band: 1, marked: map[int]bool{}}
}

func (s *searchOverlay) open() {
	s.input.Focus()
	s.input.CursorEnd()
}

// debounce schedules a search for the current text.
func (s *searchOverlay) debounce() tea.Cmd {
	s.seq++
	seq := s.seq
	return tea.Tick(debounceDelay, func(time.Time) tea.Msg { return searchTickMsg{seq} })
}

// parseQuery takes "type:K" and "path:P" filters out of the text, and
// the graph filters "route:NAME", "controller:Name[@m]", "table:NAME"
// (search --route, --controller, --table).
func parseQuery(text string) (search.Query, search.Graph) {
	q := search.Query{K: 30, MinScore: search.DefaultMinScore}
	var g search.Graph
	var words []string
	for _, w := range strings.Fields(text) {
		kind, v, _ := strings.Cut(w, ":")
		switch {
		case kind == "route" && v != "":
			g.Routes = append(g.Routes, v)
		case kind == "controller" && v != "":
			g.Controllers = append(g.Controllers, v)
		case kind == "table" && v != "":
			g.Tables = append(g.Tables, v)
		case strings.HasPrefix(w, "type:"), strings.HasPrefix(w, "kind:"):
			_, v, _ := strings.Cut(w, ":")
			q.Types = append(q.Types, strings.Split(v, ",")...)
		case strings.HasPrefix(w, "path:"):
			q.PathPrefix = strings.TrimPrefix(w, "path:")
		default:
			words = append(words, w)
		}
	}
	q.Text = strings.Join(words, " ")
	return q, g
}

// searchable reports whether text asks for anything: words, or a graph
// filter alone (which lists its walk).
func searchable(text string) bool {
	q, g := parseQuery(text)
	return strings.TrimSpace(q.Text) != "" || !g.Empty()
}

// stop cancels the search in flight, if any.
func (s *searchOverlay) stop() {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
}

func (m Model) searchCmd(ctx context.Context, seq int, text string) tea.Cmd {
	fn, root, gen := m.opts.Search, m.opts.Root, m.indexGen
	return func() tea.Msg {
		if fn == nil {
			return searchResultMsg{seq: seq, gen: gen, err: fmt.Errorf("search is not available")}
		}
		q, g := parseQuery(text)
		resp, err := fn(ctx, q, g)
		return searchResultMsg{seq: seq, gen: gen, resp: resp, previews: readPreviews(root, resp.Results), err: err}
	}
}

// searchAgain runs the overlay's query again when the index changed
// since its results were asked for: when the overlay opens, or while it
// is open and the user has not started choosing among them (none marked,
// the first selected), so a file saved meanwhile is found without
// retyping; otherwise the note says they are older than the index.
func (m *Model) searchAgain() tea.Cmd {
	s := &m.search
	if m.focus != focusSearch || s.gen == m.indexGen || !searchable(s.input.Value()) {
		return nil
	}
	if len(s.marked) > 0 || s.cursor > 0 {
		const older = " · the index changed since: edit the query to search again"
		if !strings.HasSuffix(s.note, older) {
			s.note += older
		}
		return nil
	}
	// Nothing is being typed: no pause to wait for.
	s.seq++
	seq := s.seq
	return func() tea.Msg { return searchTickMsg{seq} }
}

func (m Model) updateSearch(msg tea.Msg) (tea.Model, tea.Cmd) {
	s := &m.search
	switch msg := msg.(type) {
	case searchTickMsg:
		if msg.seq != s.seq || !searchable(s.input.Value()) {
			return m, nil
		}
		s.stop()
		var ctx context.Context
		ctx, s.cancel = context.WithCancel(context.Background())
		return m, m.searchCmd(ctx, msg.seq, s.input.Value())
	case searchResultMsg:
		if msg.seq != s.seq {
			return m, nil // an answer to an older query
		}
		if errors.Is(msg.err, context.Canceled) {
			// Closed while it searched: the results shown are not the
			// query's, and opening the overlay searches again.
			s.cancel, s.gen = nil, m.indexGen-1
			return m, nil
		}
		s.stop()
		s.err, s.note = "", ""
		if msg.err != nil {
			s.err = firstLine(msg.err.Error())
			s.results, s.previews, s.cursor, s.marked = nil, nil, 0, map[int]bool{}
			return m, nil
		}
		s.results, s.previews, s.cursor, s.marked = msg.resp.Results, msg.previews, 0, map[int]bool{}
		s.note = fmt.Sprintf("%d results in %.0f ms", len(s.results), msg.resp.Debug.LatencyMS)
		if len(s.results) == 0 {
			s.note = fmt.Sprintf("no results scoring at least %.2f", msg.resp.MinScore)
			if nm := msg.resp.Debug.NearMisses; len(nm) > 0 {
				s.note += fmt.Sprintf(" (best %.2f: %s)", nm[0].Score, termsafe.Line(nm[0].Path))
			}
		}
		s.gen = msg.gen
		if m.indexing != "" {
			s.note += " · the index is still being built: these cover what is indexed so far"
		} else if m.indexNote != noteNone {
			s.note += " · " + m.indexNote.String()
		}
		for _, w := range msg.resp.Debug.Warnings {
			s.note += " · " + termsafe.Line(w)
		}
		// A batch that landed while this search ran found the user
		// choosing among the results then shown; these replace them, so
		// they are searched again if the index moved on.
		return m, m.searchAgain()
	case tea.KeyMsg:
		return m.searchKey(msg)
	}
	return m, nil
}

func (m Model) searchKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	s, k := &m.search, m.keys
	switch {
	case key.Matches(msg, k.Cancel):
		m.focus = focusList
		s.input.Blur()
		s.stop()
		return m, nil
	case msg.Type == tea.KeyDown || msg.Type == tea.KeyCtrlN:
		s.cursor = max(0, min(len(s.results)-1, s.cursor+1))
		return m, nil
	case msg.Type == tea.KeyUp || msg.Type == tea.KeyCtrlP:
		s.cursor = max(0, s.cursor-1)
		return m, nil
	case key.Matches(msg, k.Mark):
		if s.cursor < len(s.results) {
			s.marked[s.cursor] = !s.marked[s.cursor]
			s.cursor = max(0, min(len(s.results)-1, s.cursor+1))
		}
		return m, nil
	case key.Matches(msg, k.Band):
		s.band = s.band%(len(evidence.Bands)-1) + 1
		return m, nil
	case msg.Type == tea.KeyEnter:
		return m.addResults()
	}
	before := s.input.Value()
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	if s.input.Value() != before {
		return m, tea.Batch(cmd, s.debounce())
	}
	return m, cmd
}

// addResults adds the marked results, or the selected one, at the band.
func (m Model) addResults() (tea.Model, tea.Cmd) {
	s := &m.search
	var picks []int
	for i := range s.results {
		if s.marked[i] {
			picks = append(picks, i)
		}
	}
	if len(picks) == 0 && s.cursor < len(s.results) {
		picks = []int{s.cursor}
	}
	if len(picks) == 0 {
		return m, nil
	}
	band := evidence.Bands[s.band].Name
	m.focus = focusList
	s.input.Blur()
	// One add per result, so each keeps its own search mark.
	var cmds []tea.Cmd
	for _, i := range picks {
		r := s.results[i]
		words := []string{"evidence", "add", "--as-indexed", "--band", band, fmt.Sprintf("%s::%d,%d", r.Path, r.StartLine, r.EndLine),
			"--via", fmt.Sprintf("search:%s %.2f", strings.Join(r.Sources, "+"), r.Score)}
		cmds = append(cmds, m.execCmd(action{do: words}, execNew))
	}
	m.status, m.statusErr = fmt.Sprintf("adding %d result(s) …", len(picks)), false
	return m, tea.Batch(cmds...) // queued: they run one after another
}

// searchView draws the overlay: query, results, preview of the selection.
func (m Model) searchView(w, h int) string {
	s, st := m.search, m.styles
	var b strings.Builder
	b.WriteString(s.input.View() + "\n")
	info := fmt.Sprintf("band %s (ctrl+b) · enter add · ctrl+space mark · esc close", evidence.Bands[s.band].Name)
	if s.err != "" {
		info = st.StatusError.Render(termsafe.Line(s.err))
	} else if s.note != "" {
		info = s.note + " · " + info
	}
	// First, so a narrow overlay cuts the key hints, not the meaning of
	// the marks on screen.
	if legend := m.coverLegend(); legend != "" && s.err == "" {
		info = legend + " · " + info
	}
	b.WriteString(st.Help.Render(info) + "\n")
	listH := max(1, (h-4)/2)
	start := max(0, s.cursor-listH+1)
	for i := start; i < min(len(s.results), start+listH); i++ {
		r := s.results[i]
		mark := " "
		if s.marked[i] {
			mark = "+"
		}
		path, sym := termsafe.Line(r.Path), termsafe.Line(r.Symbol)
		// The mark heads the row, where a long path cannot push it out
		// of sight; the words after it may be cut.
		cover, in := m.coverMark(r)
		row := fmt.Sprintf("%s%s %.2f %s:%d-%d %s", mark, cover, r.Score, path, r.StartLine, r.EndLine, sym)
		if n := len(r.Similar) + max(len(r.Paths)-1, 0); n > 0 {
			row += fmt.Sprintf(" +%d similar", n)
		}
		line := fit(row+" "+st.Source.Render(strings.Join(r.Sources, "+"))+st.Help.Render(in), w-2)
		if i == s.cursor {
			line = st.RowSelected.Render(fit(row+in, w-2))
		}
		b.WriteString(line + "\n")
	}
	if s.cursor < len(s.results) {
		r := s.results[s.cursor]
		title := fmt.Sprintf("── %s:%d-%d", termsafe.Line(r.Path), r.StartLine, r.EndLine)
		_, in := m.coverMark(r)
		title += in
		if r.MatchLine > 0 {
			title += fmt.Sprintf(" · %d: %s", r.MatchLine, termsafe.Line(r.Line))
		}
		b.WriteString(st.OverlayTitle.Render(fit(title, w-2)) + "\n")
		n := h - 4 - listH - 1
		lines, _ := m.highlight(s.previews[s.cursor], r.Language, r.StartLine, previewFrom(r, n), n, w-2)
		b.WriteString(strings.Join(lines, "\n"))
	}
	return m.pane("Search", b.String(), w, h, true)
}

// Marks of a result a part of the flow already holds (evidence.Coverage,
// the spans `evidence add` checks): adding it again is refused the same
// way, with the part's id.
const (
	markIn      = "●" // held by an active part
	markSkipped = "○" // held by a skipped part, one toggle away
)

// coverMark is a result's mark and the words saying which part holds it;
// " " and "" for a result outside the flow. It asks the snapshot's
// coverage, a list of the evidence parts' spans: no index, no disk.
func (m Model) coverMark(r search.Result) (mark, in string) {
	by, ok := m.snap.Coverage.Covering(r.Path, r.StartLine, r.EndLine)
	switch {
	case !ok:
		return " ", ""
	case !by.Active:
		return markSkipped, " · already in the flow as " + termsafe.Line(by.ID) + " (skipped)"
	}
	return markIn, " · already in the flow as " + termsafe.Line(by.ID)
}

// coverLegend says what the marks on screen mean, "" when there are none.
func (m Model) coverLegend() string {
	var in, skipped bool
	for _, r := range m.search.results {
		switch mark, _ := m.coverMark(r); mark {
		case markIn:
			in = true
		case markSkipped:
			skipped = true
		}
	}
	var parts []string
	if in {
		parts = append(parts, markIn+" in the flow")
	}
	if skipped {
		parts = append(parts, markSkipped+" in the flow, skipped")
	}
	return strings.Join(parts, " · ")
}

// previewFrom is the first line of a result's preview to show (0-based)
// in n rows: the top, unless that leaves its best line out of sight, which
// then shows a third of the way down.
func previewFrom(r search.Result, n int) int {
	at := r.MatchLine - r.StartLine
	if r.MatchLine <= 0 || at < n || n <= 0 {
		return 0
	}
	return at - n/3
}

// readPreviews reads each result's lines (at most 200) from the file as
// it is now, secrets masked. The whole file is scanned, not just the lines
// shown, so a secret cut by the window (a private key's last lines) is
// still found; each file is read and scanned once.
func readPreviews(root string, results []search.Result) []string {
	type file struct {
		text string
		fs   []secrets.Finding
	}
	files := map[string]*file{}
	roots := evidence.WorkspaceRoots(root)
	previews := make([]string, len(results))
	for i, r := range results {
		f, ok := files[r.Path]
		if !ok {
			f = &file{}
			// Never a FIFO or a device, and never more than the evidence cap.
			if raw, err := evidence.ReadRegular(filepath.Join(root, filepath.FromSlash(r.Path)), roots); err == nil {
				f.text = string(raw)
				f.fs = secrets.Scan(r.Path, f.text)
			}
			files[r.Path] = f
		}
		from, to := lineSpan(f.text, r.StartLine, min(r.EndLine, r.StartLine+200))
		previews[i] = secrets.MaskLines(f.text[from:to], secrets.Shift(f.fs, from, to, r.StartLine))
	}
	return previews
}

// lineSpan is the byte range of lines start..end (1-based, inclusive) of
// text, newline included; empty when start is not a line of text.
func lineSpan(text string, start, end int) (from, to int) {
	if start < 1 {
		return 0, 0
	}
	line, at := 1, 0
	for ; line < start; line++ {
		i := strings.IndexByte(text[at:], '\n')
		if i < 0 {
			return 0, 0
		}
		at += i + 1
	}
	if at == len(text) {
		return 0, 0
	}
	from = at
	for ; line <= end && at < len(text); line++ {
		i := strings.IndexByte(text[at:], '\n')
		if i < 0 {
			return from, len(text)
		}
		at += i + 1
	}
	return from, at
}
