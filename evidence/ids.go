package evidence

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dossierhq/dossier/assemble"
)

// Select finds the parts a spec names: an id ("300_example"), a file name
// ("300_example.evidence.md"), a rank ("300"), a range of ranks
// ("300-399") or seed 003's evidence variable ("e3", "$e3").
func (f *Flow) Select(spec string) ([]*Part, error) {
	if lo, hi, ok := parseRankRange(spec); ok {
		var out []*Part
		for _, p := range f.Parts {
			if r, _ := strconv.Atoi(p.Rank); r >= lo && r <= hi {
				out = append(out, p)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no parts with ranks %s", spec)
		}
		return out, nil
	}
	p, err := f.Find(spec)
	if err != nil {
		return nil, err
	}
	return []*Part{p}, nil
}

// SelectAll resolves every spec before anything changes, so one bad spec
// changes nothing, and names each part once however often it is named.
func (f *Flow) SelectAll(specs []string) ([]*Part, error) {
	var out []*Part
	seen := map[*Part]bool{}
	for _, s := range specs {
		ps, err := f.Select(s)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// Find finds the one part a spec names.
func (f *Flow) Find(spec string) (*Part, error) {
	spec = strings.TrimSpace(spec)
	if v, ok := strings.CutPrefix(strings.TrimPrefix(spec, "$"), "e"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			ev := f.EvidenceParts()
			if n < 1 || n > len(ev) {
				return nil, fmt.Errorf("no $e%d: the flow has %d evidence parts", n, len(ev))
			}
			return ev[n-1], nil
		}
	}
	if n, ok := ParsePartName(spec); ok {
		spec = n.ID()
	}
	var byRank []*Part
	for _, p := range f.Parts {
		if p.ID() == spec {
			return p, nil
		}
		if p.Rank == spec || (isDigits(spec) && len(spec) < 3 && p.Rank == fmt.Sprintf("%03s", spec)) {
			byRank = append(byRank, p)
		}
	}
	switch len(byRank) {
	case 1:
		return byRank[0], nil
	case 0:
	default:
		ids := make([]string, len(byRank))
		for i, p := range byRank {
			ids[i] = p.ID()
		}
		return nil, fmt.Errorf("rank %s names %d parts (%s): give the full id", spec, len(byRank), strings.Join(ids, ", "))
	}
	ids := make([]string, 0, len(f.Parts))
	for _, p := range f.Parts {
		ids = append(ids, p.ID())
	}
	return nil, fmt.Errorf("no part %q in flow %s%s", spec, f.Meta.ID, nearest(spec, ids))
}

// EvidenceParts are the evidence parts in order: seed 003's $e1, $e2, ...
func (f *Flow) EvidenceParts() []*Part {
	var out []*Part
	for _, p := range f.Parts {
		if p.Role == assemble.Evidence {
			out = append(out, p)
		}
	}
	return out
}

// byRank returns the part holding rank r, if any.
func (f *Flow) byRank(r int) *Part {
	rs := FormatRank(r)
	for _, p := range f.Parts {
		if p.Rank == rs {
			return p
		}
	}
	return nil
}

// NextRank is the first free rank of band after every rank used in it, on
// a step of 10 when one is free (100, 110, 120 ...), else any free one.
func (f *Flow) NextRank(b Band) (int, error) {
	last := -1
	for _, p := range f.Parts {
		if r, _ := strconv.Atoi(p.Rank); r >= b.Low && r <= b.Hi {
			last = max(last, r)
		}
	}
	start := b.Low
	if last >= 0 {
		start = (last/10 + 1) * 10
	}
	for r := start; r <= b.Hi; r += 10 {
		if f.byRank(r) == nil {
			return r, nil
		}
	}
	for r := b.Low; r <= b.Hi; r++ {
		if f.byRank(r) == nil {
			return r, nil
		}
	}
	return 0, fmt.Errorf("rank band %s (%03d-%03d) is full: run `dossier evidence rebase` or choose --rank", b.Name, b.Low, b.Hi)
}

// freeNear lists up to three free ranks near r, for error messages.
func (f *Flow) freeNear(r int) string {
	var out []string
	for d := 1; d < 50 && len(out) < 3; d++ {
		for _, c := range []int{r + d, r - d} {
			if c >= 0 && c <= 999 && f.byRank(c) == nil && len(out) < 3 {
				out = append(out, FormatRank(c))
			}
		}
	}
	return strings.Join(out, ", ")
}
