package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/store/fsafe"
)

// Turn is one exchange of a flow's conversation, as its two files in
// FLOW/turns/ hold it.
type Turn struct {
	N       int
	Request string // path of NNN.request.json
	Answer  string // path of NNN.answer.md
	// Instruction is the turn's first user item ([MODE] + [INSTRUCTION]
	// and the request), read from the posted body.
	Instruction string
	// Text is the answer without its header, hand edits included: what a
	// follow-up sends as this turn's answer.
	Text       string
	Model      string
	API        send.API
	Endpoint   string
	ResponseID string
	Usage      send.Usage
	HasUsage   bool
	Cost       float64 // USD; HasCost false when the price is unknown
	HasCost    bool
	Seconds    float64
	// Status is "completed" or "incomplete" (then Reason says why:
	// "cancelled", the server's "max_output_tokens", or the error that
	// cut the stream).
	Status, Reason string
	Time           time.Time

	// textLine is the line of the answer file where Text starts.
	textLine int
}

// Asked is the text a person wrote for the turn: the instruction without
// its [MODE] and [INSTRUCTION] lines.
func (t Turn) Asked() string { return requestText(t.Instruction) }

// Turns lists the current flow's turns, oldest first. A turn file that
// cannot be read is an error that names it and says how to fix it: a
// turn is never dropped from the conversation without a word.
func (e *Engine) Turns() ([]Turn, error) {
	f, err := e.Flow()
	if err != nil {
		return nil, err
	}
	return f.Turns()
}

// Turns reads the flow's turns/ directory.
func (f *Flow) Turns() ([]Turn, error) {
	dir := filepath.Join(f.Dir, turnsDir)
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, syscall.ENOTDIR):
		return nil, fmt.Errorf("%s is not a directory: dossier keeps the flow's turns there; move that file away", dir)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	type pair struct{ req, ans bool }
	found := map[int]*pair{}
	for _, en := range entries {
		m := turnFile().FindStringSubmatch(en.Name())
		if m == nil {
			continue // notes, editor backups: not turns
		}
		n, _ := strconv.Atoi(m[1])
		p := found[n]
		if p == nil {
			p = &pair{}
			found[n] = p
		}
		if m[2] == "request.json" {
			p.req = true
		} else {
			p.ans = true
		}
	}
	ns := make([]int, 0, len(found))
	for n := range found {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	out := make([]Turn, 0, len(ns))
	for _, n := range ns {
		t := Turn{N: n, Request: filepath.Join(dir, turnName(n, "request.json")), Answer: filepath.Join(dir, turnName(n, "answer.md"))}
		drop := fmt.Sprintf("or move both %s and %s out of %s to drop the turn", filepath.Base(t.Request), filepath.Base(t.Answer), dir)
		switch p := found[n]; {
		case !p.req:
			return nil, fmt.Errorf("turn %d has %s but no %s (the body that was posted): put it back, %s", n, t.Answer, filepath.Base(t.Request), drop)
		case !p.ans:
			return nil, fmt.Errorf("turn %d has %s but no %s (its answer): put it back, or remove %s", n, t.Request, filepath.Base(t.Answer), t.Request)
		}
		if err := f.readTurn(&t); err != nil {
			return nil, fmt.Errorf("%v, %s", err, drop)
		}
		out = append(out, t)
	}
	return out, nil
}

// readTurn fills t from its two files.
func (f *Flow) readTurn(t *Turn) error {
	raw, err := ReadRegular(t.Answer, f.roots)
	if err != nil {
		return fmt.Errorf("turn file %s cannot be read (%v): fix it", t.Answer, err)
	}
	m, text, err := parseAnswer(string(raw))
	if err != nil {
		return fmt.Errorf("turn file %s is damaged: %v: repair its first line (`<!-- turn=%d -->` is enough)", t.Answer, err, t.N)
	}
	body, err := ReadRegular(t.Request, f.roots)
	if err != nil {
		return fmt.Errorf("turn file %s cannot be read (%v): fix it", t.Request, err)
	}
	instr, err := instructionOf(body)
	if err != nil {
		return fmt.Errorf("turn file %s is damaged: %v: it must be the JSON body that was posted (a follow-up resends its instruction); repair it", t.Request, err)
	}
	t.Instruction, t.Text = instr, text
	t.textLine = 1 + strings.Count(string(raw[:len(raw)-len(text)]), "\n")
	t.Model, t.API, t.Endpoint, t.ResponseID = m.Model, send.API(m.API), m.Endpoint, m.ResponseID
	t.Usage = send.Usage{Input: m.In, Output: m.Out, Cached: m.Cached, Reasoning: m.Reasoning}
	t.HasUsage, t.Cost, t.HasCost, t.Seconds = m.HasUsage, m.Cost, m.HasCost, m.Seconds
	t.Status, t.Reason, t.Time = m.Status, m.Reason, m.Time
	return nil
}

// countTurns counts the answer files in a flow's turns/, without reading
// them.
func countTurns(flowDir string) int {
	entries, _ := os.ReadDir(filepath.Join(flowDir, turnsDir))
	n := 0
	for _, en := range entries {
		if m := turnFile().FindStringSubmatch(en.Name()); m != nil && m[2] == "answer.md" {
			n++
		}
	}
	return n
}

// Line is the turn in one line, as `flow show` lists it:
// "002  2026-11-24 04:00  gpt-4o-mini  1,234 in · 567 out · $0.0041  completed  And Mul?".
func (t Turn) Line() string {
	when := "-"
	if !t.Time.IsZero() {
		when = t.Time.Local().Format("2006-01-02 15:04")
	}
	use := "usage unknown"
	if t.HasUsage {
		use = Thousands(t.Usage.Input) + " in · " + Thousands(t.Usage.Output) + " out"
	}
	if t.HasCost {
		use += " · " + Dollars(t.Cost)
	}
	status := orDash(t.Status)
	if t.Reason != "" {
		status += " (" + t.Reason + ")"
	}
	asked, _, _ := strings.Cut(t.Asked(), "\n")
	if len([]rune(asked)) > 60 {
		asked = string([]rune(asked)[:59]) + "…"
	}
	return fmt.Sprintf("%03d  %s  %s  %s  %s  %s", t.N, when, orDash(t.Model), use, status, asked)
}

// Dollars writes a cost: "$0.0041", "$1.23".
func Dollars(usd float64) string {
	if usd > 0 && usd < 0.0001 {
		return "<$0.0001"
	}
	if usd >= 1 {
		return fmt.Sprintf("$%.2f", usd)
	}
	return fmt.Sprintf("$%.4f", usd)
}

// nextTurn is the number the next turn gets: one past the highest file
// in turns/, whatever its state.
func nextTurn(dir string) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, en := range entries {
		if m := turnFile().FindStringSubmatch(en.Name()); m != nil {
			if k, _ := strconv.Atoi(m[1]); k > n {
				n = k
			}
		}
	}
	return n + 1
}

// keepTurn writes a turn's two files, the request first. Each is written
// whole under a temporary name and linked into place only if no file has
// that name (two sends at once take two numbers, never one file); the
// number moves on when it is taken. It returns the turn's number.
func keepTurn(dir string, n int, body []byte, answer func(n int) string) (int, error) {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return 0, writeErr(dir, err)
	}
	for tries := 0; ; tries++ {
		req := filepath.Join(dir, turnName(n, "request.json"))
		err := writeNew(req, body)
		if errors.Is(err, fs.ErrExist) && tries < 100 {
			n++
			continue
		}
		if err != nil {
			return 0, err
		}
		ans := filepath.Join(dir, turnName(n, "answer.md"))
		if err := writeNew(ans, []byte(answer(n))); err != nil {
			os.Remove(req)
			return 0, err
		}
		return n, nil
	}
}

// writeNew writes data to path atomically, failing with fs.ErrExist when
// path exists: the data goes to a synced temporary file, hard-linked to
// path (which never replaces), then the temporary name is removed.
func writeNew(path string, data []byte) error {
	t, err := fsafe.WriteTemp(path, data, FileMode)
	if err != nil {
		return writeErr(path, err)
	}
	if err := t.Link(path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		return writeErr(path, err)
	}
	return nil
}
