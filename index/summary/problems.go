package summary

import (
	"cmp"
	"context"
	"slices"

	"github.com/dossierhq/dossier/store"
)

// ProblemAt is one thing the index could not read in a file it indexed:
// where, why (the note: parse_error, section_dropped, facts_dropped) and
// what went wrong.
type ProblemAt struct {
	Path   string `json:"path"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
	Detail string `json:"detail,omitempty"`
}

// Problems lists what the index could not read in the files it holds, by
// path and line: the files parsed with syntax errors and the files that
// lost a framework's facts or a describer's sections (see
// store.File.Problems). A file recorded before problems were kept shows
// its parse error without a line.
func Problems(ctx context.Context, root string) ([]ProblemAt, error) {
	var out []ProblemAt
	err := eachFile(ctx, root, func(_ *store.Tx, f store.File) error {
		parsed := false
		for _, p := range f.Problems {
			parsed = parsed || p.Reason == NoteParseError
			out = append(out, ProblemAt{Path: f.Path, Line: p.Line, Reason: p.Reason, Detail: p.Detail})
		}
		if f.ParseError && !parsed {
			out = append(out, ProblemAt{Path: f.Path, Reason: NoteParseError, Detail: "syntax error"})
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b ProblemAt) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
	return out, err
}
