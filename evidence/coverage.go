package evidence

import (
	"fmt"

	"github.com/dossierhq/dossier/assemble"
)

// CoverSpan is the source span an evidence part holds.
type CoverSpan struct {
	ID         string // the part's id, "120_parse_go"
	Path       string // workspace relative
	Start, End int    // lines, inclusive; 0, 0 for a whole file
	Span       string // as the provenance says: "all", "lines=3:9", "bytes=0:40"
	Active     bool
}

// sameAs reports whether x selects exactly this span: never added twice,
// even with --force.
func (s CoverSpan) sameAs(x Extract) bool {
	return s.Span == x.Source.Span || (x.Whole && s.Start == 0)
}

// Coverage lists the spans a flow's evidence parts hold, so `evidence
// add`, gather, from-output and the workbench's search overlay can tell
// what is already in the flow. It is a plain value: the workbench keeps
// it in its snapshot and asks it without touching the engine.
type Coverage []CoverSpan

// Coverage returns the spans of f's readable evidence parts, skipped ones
// included (they are in the flow, one toggle away).
func (f *Flow) Coverage() Coverage {
	var out Coverage
	for _, p := range f.Parts {
		if p.Role != assemble.Evidence || p.Broken != "" || p.Source.Path == "" {
			continue
		}
		s := CoverSpan{ID: p.ID(), Path: p.Source.Path, Span: p.Source.Span, Active: p.Active()}
		if p.Source.Span != "all" && p.Source.StartLine > 0 {
			s.Start, s.End = p.Source.StartLine, p.Source.EndLine
		}
		out = append(out, s)
	}
	return out
}

// Covering returns the span that holds all of lines start..end of path
// (start 0: the whole file), preferring an active part, or false. A
// whole-file part holds every span of its file; a span holds only the
// lines inside it, so a wider selection is not covered by a narrower one.
func (c Coverage) Covering(path string, start, end int) (CoverSpan, bool) {
	var found CoverSpan
	ok := false
	for _, s := range c {
		if s.Path != path {
			continue
		}
		whole := s.Start == 0
		if whole || (start > 0 && s.Start <= start && end <= s.End) {
			if !ok || (s.Active && !found.Active) {
				found, ok = s, true
			}
		}
	}
	return found, ok
}

// Held returns the span that holds lines start..end of path, or else one
// that lies inside them: a wider span over a part would send its lines
// twice. Adding a wider span is refused, not merged nor replaced, since the
// part may be hand edited, pinned or ranked apart; the error says how to
// replace it. wider is true for the second case.
func (c Coverage) Held(path string, start, end int) (s CoverSpan, wider, ok bool) {
	if s, ok := c.Covering(path, start, end); ok {
		return s, false, true
	}
	for _, s := range c {
		if s.Path == path && s.Start > 0 && (start == 0 || (start <= s.Start && s.End <= end)) {
			return s, true, true
		}
	}
	return CoverSpan{}, false, false
}

// CoveredError is the error of adding what a part of the flow already
// holds, or (Wider) a span around such a part.
type CoveredError struct {
	Selector string
	By       CoverSpan
	Wider    bool
}

func (e *CoveredError) Error() string {
	if e.Wider {
		return fmt.Sprintf("%s would hold %s (lines %d-%d) a second time: refused; to replace it, `dossier evidence remove %s` then add again (--force adds both)", e.Selector, e.By.ID, e.By.Start, e.By.End, e.By.ID)
	}
	what := "is already in the flow as " + e.By.ID
	if e.By.Start > 0 {
		what += fmt.Sprintf(" (lines %d-%d)", e.By.Start, e.By.End)
	}
	fix := "`dossier evidence refresh " + e.By.ID + "` updates it (--force adds a narrower copy)"
	if !e.By.Active {
		fix = "it is skipped: `dossier evidence toggle on " + e.By.ID + "` brings it back"
	}
	return e.Selector + " " + what + ": " + fix
}
