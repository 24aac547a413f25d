// Package summary is what an index run records of itself: the figures
// of the whole index, what the run did, and where the index found
// secrets. It reads them without linking the indexer, so that the
// one-shot dossier front can show them.
package summary

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dossierhq/dossier/store"
)

// Summary describes the index after a run and what the run did.
type Summary struct {
	Root string `json:"root"`
	Totals
	Indexed      int            `json:"indexed"`
	Unchanged    int            `json:"unchanged"`
	Touched      int            `json:"touched"`
	Removed      int            `json:"removed"`
	Skipped      map[string]int `json:"skipped"`
	SkippedFiles []Skipped      `json:"skipped_files,omitempty"`
	Notes        map[string]int `json:"notes,omitempty"`
	// NotedFiles are the files behind Notes, each with its note as Reason
	// and why (kept, like SkippedFiles, by a verbose run).
	NotedFiles []Skipped `json:"noted_files,omitempty"`
	Errors     []string  `json:"errors,omitempty"`
	Seconds    float64   `json:"seconds"`
	// ManifestState is what manifestState found at the end of the run.
	ManifestState string `json:"manifest_state,omitempty"`
	// HistoryMark names the history files this run indexed (see
	// history.Result.Mark): while it is unchanged, the next run takes them
	// from the index's records instead of walking them.
	HistoryMark string `json:"history_mark,omitempty"`
	// AnswersMark names the kept answers the run found before its walk
	// (see the indexer's answersMark).
	AnswersMark string `json:"answers_mark,omitempty"`
	// RebuiltFrom is the schema of an older index this run replaced, or -1.
	RebuiltFrom int `json:"rebuilt_from_schema"`
	// RebuiltDamaged is set when the run found the index damaged, kept it
	// as DamagedFile and rebuilt it from scratch; Damage says what was wrong.
	RebuiltDamaged bool       `json:"rebuilt_damaged,omitempty"`
	Damage         string     `json:"damage,omitempty"`
	DamagedFile    string     `json:"damaged_file,omitempty"`
	Finished       time.Time  `json:"finished"`
	Repo           store.Repo `json:"repo"`
	// Generation is the index's generation once the summary was written
	// with totals summed from the file records: while it is unchanged,
	// nothing was written since and the totals are current (0: unknown).
	Generation uint64 `json:"generation,omitempty"`
}

// Totals are the figures of the whole index.
type Totals struct {
	Files            int            `json:"files"`
	Chunks           int            `json:"chunks"`
	ChunksByKind     map[string]int `json:"chunks_by_kind"`
	ChunksByLanguage map[string]int `json:"chunks_by_language"`
	FilesByLanguage  map[string]int `json:"files_by_language"`
	ParseErrors      int            `json:"files_with_parse_errors"`
	// Dropped counts the files indexed without some of their facts or
	// sections (a framework extractor or a describer failed on them);
	// Problems lists them with the parse errors.
	Dropped int `json:"files_with_dropped_parts,omitempty"`
	// Secrets counts the credentials found, in SecretFiles files; search
	// masks them and every exit redacts them.
	Secrets     int `json:"secrets"`
	SecretFiles int `json:"files_with_secrets"`
}

// NoteParseError is the note (and problem) of a file the parser recovered
// from syntax errors in; ParseErrors counts those files, Dropped the
// files with other problems.
const NoteParseError = "parse_error"

// Skipped is one skipped path and why.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// Note counts one indexed file's note n, and keeps n when verbose (see
// SortNoted).
func (s *Summary) Note(n Skipped, verbose bool) {
	if s.Notes == nil {
		s.Notes = map[string]int{}
	}
	s.Notes[n.Reason]++
	if verbose {
		s.NotedFiles = append(s.NotedFiles, n)
	}
}

// SortNoted puts NotedFiles in path order, as SkippedFiles are, once a
// run's workers, which finish files in any order, are done.
func (s *Summary) SortNoted() {
	slices.SortFunc(s.NotedFiles, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
}

// Remove takes path's record, if the index holds one, out of t (nil: no
// totals are kept).
func (t *Totals) Remove(tx *store.Tx, path string) error {
	if t == nil {
		return nil
	}
	old, ok, err := tx.File(path)
	if ok && err == nil {
		t.Apply(old, -1)
	}
	return err
}

// NewTotals returns empty totals, ready for Apply.
func NewTotals() Totals {
	return Totals{ChunksByKind: map[string]int{}, ChunksByLanguage: map[string]int{}, FilesByLanguage: map[string]int{}}
}

// Apply adds (sign 1) or removes (sign -1) one file's figures.
func (t *Totals) Apply(f store.File, sign int) {
	t.Files += sign
	t.FilesByLanguage[f.Language] += sign
	for k, n := range f.Kinds {
		t.Chunks += sign * n
		t.ChunksByKind[k] += sign * n
		t.ChunksByLanguage[f.Language] += sign * n
	}
	if f.ParseError {
		t.ParseErrors += sign
	}
	if slices.ContainsFunc(f.Problems, func(p store.FileProblem) bool { return p.Reason != NoteParseError }) {
		t.Dropped += sign
	}
	if f.Secrets > 0 {
		t.Secrets += sign * f.Secrets
		t.SecretFiles += sign
	}
	for _, m := range []map[string]int{t.FilesByLanguage, t.ChunksByKind, t.ChunksByLanguage} {
		for k, v := range m {
			if v == 0 {
				delete(m, k)
			}
		}
	}
}

// Read returns the summary recorded by the last completed run; ctx ends a
// wait for a writer early (see store.OpenContext).
func Read(ctx context.Context, root string) (Summary, error) {
	db, err := store.OpenContext(ctx, store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		return Summary{}, err
	}
	defer db.Close()
	var sum Summary
	err = db.View(func(tx *store.Tx) error {
		ok, err := tx.Summary(&sum)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: no completed run recorded in %s; run `dossier index`", store.ErrNoIndex, db.FilePath())
		}
		return nil
	})
	return sum, err
}

// SecretAt is one secret the index found: where, and by which rule.
type SecretAt struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Rule string `json:"rule"`
}

// Secrets lists the secrets the index found, by path and line, so they
// can be removed (search and every exit mask them).
func Secrets(ctx context.Context, root string) ([]SecretAt, error) {
	var out []SecretAt
	err := eachFile(ctx, root, func(tx *store.Tx, f store.File) error {
		if f.Secrets == 0 {
			return nil
		}
		chunks, err := tx.FileChunks(f.Path)
		if err != nil {
			return err
		}
		seen := map[int]bool{}
		for _, c := range chunks {
			if c.Outline != "" {
				continue // an outline's findings repeat its span chunks'
			}
			for _, s := range c.Secrets {
				if !seen[s.Start] {
					seen[s.Start] = true
					out = append(out, SecretAt{Path: f.Path, Line: s.Line, Rule: s.Rule})
				}
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out, err
}

// eachFile calls fn with every file record of the index at root, in a
// read-only transaction.
func eachFile(ctx context.Context, root string, fn func(*store.Tx, store.File) error) error {
	db, err := store.OpenContext(ctx, store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *store.Tx) error {
		return tx.Files(func(f store.File) error { return fn(tx, f) })
	})
}
