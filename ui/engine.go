package ui

import (
	"bytes"
	"context"
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
	last  snapshot
	print string
}

// row is one part as the evidence list shows it.
type row struct {
	ID, Name, Rank, Role string
	Band                 string
	States               []string
	Tokens               int
	Active, Pinned, Link bool
	Source, Found        string
	Heading, Lang, Code  string
	Body                 string
	StartLine            int
	Detail               assemble.Detail
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
	Focus       string
	Err         string // why there is no flow, when there is none
}

// exec runs one command line through the engine and returns its output
// and the state after it.
func (r *runner) exec(ctx context.Context, words []string, format assemble.Format) (string, error, snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out bytes.Buffer
	err := r.e.Exec(ctx, words, &out)
	return out.String(), err, r.remember(r.snapshotLocked(format))
}

// snapshot reads the flow afresh (hand edits included) and assembles it,
// unless the directory is as the last snapshot saw it and force is off.
func (r *runner) snapshot(format assemble.Format, force bool) snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !force && r.last.Dir != "" && r.last.Format == format && r.last.Err == "" && fingerprint(r.last.Dir) == r.print {
		return r.last
	}
	r.e.Reload()
	return r.remember(r.snapshotLocked(format))
}

func (r *runner) remember(s snapshot) snapshot {
	r.last, r.print = s, ""
	if s.Dir != "" {
		r.print = fingerprint(s.Dir)
	}
	return s
}

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

func (r *runner) snapshotLocked(format assemble.Format) snapshot {
	r.version++
	f, err := r.e.Flow()
	if err != nil {
		return snapshot{Version: r.version, Err: err.Error(), Format: format}
	}
	res, _, err := r.e.Assemble(format)
	if err != nil {
		return snapshot{Version: r.version, Err: err.Error(), Format: format}
	}
	s := snapshot{Version: r.version, FlowID: f.Meta.ID, Dir: f.Dir, Format: format, Text: res.Text, Tokens: res.Tokens,
		Budget: r.e.Budget(), Exact: res.Exact, Encoding: res.Encoding, ByRole: res.ByRole, Frame: res.Frame,
		Problems: f.Problems}
	if f.Meta.Focus != nil {
		s.Focus = f.Meta.Focus.Query
	}
	stale := r.e.Staleness(f)
	i := 0
	for _, p := range f.Parts {
		rw := row{ID: p.ID(), Name: p.Name.String(), Rank: p.Rank, Role: string(p.Role),
			Active: p.Active() && p.Broken == "", Pinned: p.Pinned, Link: p.Link, Found: f.Meta.Found[p.ID()],
			Heading: p.Heading, Lang: p.Source.Language, Code: p.Code, Body: p.Body, StartLine: p.Source.StartLine,
			Detail: p.Detail}
		rw.Band = evidence.BandOf(atoi(p.Rank)).Name
		rw.States = evidence.States(p, stale[p])
		rw.Source = evidence.SourceLabel(p)
		if p.Broken == "" {
			if i < len(res.PartTokens) {
				rw.Tokens = res.PartTokens[i]
			}
			i++
		}
		if rw.Code == "" {
			rw.Code, rw.Lang = p.Body, "markdown"
		}
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
