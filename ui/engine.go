package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/evidence"
)

// runner serializes the evidence engine: commands run in tea.Cmd
// goroutines and the engine is not safe for concurrent use, so each one
// holds the lock for its whole run. Update never touches the engine.
type runner struct {
	mu      sync.Mutex
	e       *evidence.Engine
	version uint64 // of the last snapshot, so older replies can be told apart
	// last is the latest snapshot and print the flow directory's
	// fingerprint when it was taken: the reload that the workbench's own
	// writes trigger finds nothing changed and costs a directory listing.
	last   snapshot
	print  string
	closed bool
	masked maskCache // the previews' masked code
	// quit ends what a command waits for outside the flow (an export's
	// FIFO with no reader yet) when the workbench closes; nothing of the
	// engine's own writes looks at it.
	quit     context.Context
	stopWait context.CancelFunc

	// The send settings (settings.go): how to read them, the files they
	// come from and those files' print at the last read, the error of a
	// config that did not read, and [ui] confirm_send.
	settings  func() (SendSettings, error)
	cfgFiles  []string
	cfgPrint  string
	cfgErr    error
	cfgNotice string
	confirm   bool
}

// newRunner is the runner of e.
func newRunner(e *evidence.Engine) *runner {
	r := &runner{e: e}
	r.quit, r.stopWait = context.WithCancel(context.Background())
	return r
}

// row is one part as the evidence list shows it.
type row struct {
	ID, Name, Rank, Role string
	// Kind is the name's kind ("request", "policy", "parse_go"); Path the
	// part file (the link itself for a .link), which the editor key opens.
	Kind, Path           string
	Band                 string
	States               []string
	Tokens               int
	Active, Pinned, Link bool
	Source, Found        string
	Heading, Lang        string
	// Code is what the preview shows, secrets masked (see maskCache).
	Code      string
	StartLine int
	Detail    assemble.Detail
}

// snapshot is everything the view needs after one engine operation; it is
// built under the lock and never changed afterwards.
type snapshot struct {
	Version     uint64 // taken under the runner's lock: higher is newer
	FlowID, Dir string
	Rows        []row
	Format      assemble.Format
	Text        string
	Tokens      int
	Budget      int
	Exact       bool
	Encoding    string
	ByRole      map[assemble.Role]int
	Frame       int
	Problems    []string
	// Coverage is the spans the evidence parts hold, for the search
	// overlay's "in the flow as ..." mark.
	Coverage evidence.Coverage
	Focus    string
	Err      string // why there is no flow, when there is none
	// Cost is what sending Text would cost in USD (its input side);
	// HasCost false when the model's price is not known.
	Cost    float64
	HasCost bool
}

// exec runs one command line through the engine and returns its output
// and the state after it.
func (r *runner) exec(ctx context.Context, words []string, format assemble.Format) (string, snapshot, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return "", r.last, errClosed
	}
	// Another shell may have changed the flow since the last read: the
	// command must act on what is on disk, not on the engine's memory.
	if !r.unchanged() {
		r.e.Reload()
	}
	var out bytes.Buffer
	err := r.e.Exec(ctx, words, &out)
	// The reply shows the engine's state after the command. What else is
	// on disk is unknown (another shell may have written meanwhile), so
	// the next snapshot, which the watcher asks for right away, reads it.
	s := r.snapshotLocked(format)
	r.last, r.print = s, ""
	return out.String(), s, err
}

// snapshot reads the flow afresh (hand edits included) and assembles it,
// unless nothing changed on disk since the last snapshot and force is off.
func (r *runner) snapshot(format assemble.Format, force bool) snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !force && r.last.Format == format && r.last.Err == "" && r.unchanged() {
		return r.last
	}
	if force {
		r.e.Recheck()
	}
	return r.read(format)
}

// read takes the fingerprint first and then reads the flow, so a change
// landing in between makes the next fingerprint differ instead of being
// taken as already seen.
func (r *runner) read(format assemble.Format) snapshot {
	dir := r.currentDir()
	print := ""
	if dir != "" {
		print = fingerprint(dir)
	}
	r.e.Reload()
	s := r.snapshotLocked(format)
	r.last, r.print = s, print
	if s.Dir != dir {
		r.print = "" // the flow moved under us: read again next time
	}
	return s
}

// unchanged reports whether the current flow is the last snapshot's and
// its directory is as it was then.
func (r *runner) unchanged() bool {
	dir := r.currentDir()
	return dir != "" && dir == r.last.Dir && r.print != "" && fingerprint(dir) == r.print
}

// currentDir is the flow directory FLOW_DIR or the workspace's current
// flow names now ("" when there is none): another shell's `flow use`
// shows up here.
func (r *runner) currentDir() string {
	dir, err := evidence.Locate(r.e.Root, r.e.Getenv)
	if err != nil {
		return ""
	}
	return dir
}

// close waits for the command in flight and refuses later ones, so
// quitting never cuts a change short; one waiting on the outside (quit)
// stops waiting.
func (r *runner) close() {
	r.stopWait()
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
}

var errClosed = errors.New("the workbench is closing")

// fingerprint lists what a reload would read differently: the names,
// sizes and times of flow.json and the part files.
func fingerprint(dir string) string {
	var b strings.Builder
	for _, sub := range []string{"", "ctx", filepath.Join("ctx", "evidence")} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			b.WriteString("!" + sub)
			continue
		}
		for _, e := range entries {
			info, err := e.Info()
			if err != nil || e.IsDir() {
				continue
			}
			fmt.Fprintf(&b, "%s/%s %d %d\n", sub, e.Name(), info.Size(), info.ModTime().UnixNano())
		}
	}
	return b.String()
}

// noFlowSnapshot is the snapshot when there is no flow to show (err says
// why): its tokenizer is the default budget's, which the file tree
// counts with.
func (r *runner) noFlowSnapshot(err error, format assemble.Format) snapshot {
	s := snapshot{Version: r.version, Err: err.Error(), Format: format}
	if p, err := r.e.Profile(); err == nil {
		s.Encoding = p.Encoding
	}
	return s
}

func (r *runner) snapshotLocked(format assemble.Format) snapshot {
	r.version++
	f, err := r.e.Flow()
	if err != nil {
		return r.noFlowSnapshot(err, format)
	}
	res, snap, err := r.e.Assemble(format)
	if err != nil {
		return r.noFlowSnapshot(err, format)
	}
	// The pieces of the secrets each part's whole source holds, which
	// the prompt's redaction replaces first: a part may hold only a
	// private key's middle lines, which no scan of the part finds.
	pieces := map[string][]assemble.SourceSecret{}
	for _, p := range snap.Parts {
		if len(p.SourceSecrets) > 0 {
			pieces[p.ID()] = p.SourceSecrets
		}
	}
	s := snapshot{Version: r.version, FlowID: f.Meta.ID, Dir: f.Dir, Format: format, Text: res.Text, Tokens: res.Tokens,
		Budget: r.e.Budget(), Exact: res.Exact, Encoding: res.Encoding, ByRole: res.ByRole, Frame: res.Frame,
		Problems: f.Problems, Coverage: f.Coverage()}
	s.Cost, _, _, s.HasCost = r.e.InputCost(res.Tokens)
	if f.Meta.Focus != nil {
		s.Focus = f.Meta.Focus.Query
	}
	stale := r.e.Staleness(f)
	mask, done := r.masked.masks()
	defer done()
	i := 0
	for _, p := range f.Parts {
		rw := row{ID: p.ID(), Name: p.Name.String(), Rank: p.Rank, Role: string(p.Role), Kind: p.Name.Kind, Path: p.Path,
			Active: p.Active() && p.Broken == "", Pinned: p.Pinned, Link: p.Link, Found: f.Meta.Found[p.ID()],
			Heading: p.Heading, Lang: p.Source.Language, Code: p.Code, StartLine: p.Source.StartLine,
			Detail: p.Detail}
		rw.Band = evidence.BandOf(atoi(p.Rank)).Name
		rw.States = evidence.States(p, stale[p])
		rw.Source = evidence.SourceLabel(p)
		if p.InSnapshot() {
			if i < len(res.PartTokens) && p.Refused == "" {
				rw.Tokens = res.PartTokens[i]
			}
			i++
		}
		if rw.Code == "" {
			rw.Code, rw.Lang = p.Body, "markdown"
		}
		rw.Code = mask(p.Source.Path, assemble.RedactPieces(rw.Code, pieces[p.ID()], nil))
		if rw.StartLine == 0 {
			rw.StartLine = 1
		}
		s.Rows = append(s.Rows, rw)
	}
	return s
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return n
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}
