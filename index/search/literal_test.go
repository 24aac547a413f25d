package search

import (
	"bytes"
	"regexp"
	"testing"
)

func TestASCIILower(t *testing.T) {
	var all []byte
	for c := 0; c < 256; c++ {
		all = append(all, byte(c))
	}
	for n := 0; n <= len(all); n += 7 {
		in := all[:n]
		want := make([]byte, n)
		for i, c := range in {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			want[i] = c
		}
		if got := asciiLower(nil, in); !bytes.Equal(got, want) {
			t.Fatalf("asciiLower of %d bytes:\n got %q\nwant %q", n, got, want)
		}
	}
}

func TestRequiredLiterals(t *testing.T) {
	cases := []struct {
		expr string
		want []string // nil: no prefilter
		fold bool
	}{
		{"TODO|FIXME", []string{"TODO", "FIXME"}, false},
		{`(?i)todo: accept`, []string{"todo: accept"}, true},
		{`func \(\w+ \*Server\)`, []string{" *Server)"}, false},
		{`errors\.New\("[^"]*timeout`, []string{`errors.New("`}, false},
		{`a.*b`, nil, false},       // one-byte literals filter nothing
		{`x*y?`, nil, false},       // nothing required
		{`(foo|ba*r)`, nil, false}, // one branch requires only "b", "r"
		{`(abc)+d`, []string{"abc"}, false},
		{`(?i)café`, nil, false}, // non-ASCII folding: no filter
	}
	for _, c := range cases {
		p := newPrefilter(c.expr)
		if c.want == nil {
			if p != nil {
				t.Errorf("%s: prefilter %q, want none", c.expr, p.lits)
			}
			continue
		}
		if p == nil {
			t.Errorf("%s: no prefilter, want %q", c.expr, c.want)
			continue
		}
		var got []string
		for _, l := range p.lits {
			got = append(got, string(l))
		}
		if len(got) != len(c.want) || p.fold != c.fold {
			t.Errorf("%s: %q fold %v, want %q fold %v", c.expr, got, p.fold, c.want, c.fold)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] && !(c.fold && got[i] == string(bytes.ToLower([]byte(c.want[i])))) {
				t.Errorf("%s: %q, want %q", c.expr, got, c.want)
			}
		}
	}
}

// TestPrefilterNeverDropsAMatch checks the filter against the regexp
// itself: whenever the expression matches a text, the filter lets it by.
func TestPrefilterNeverDropsAMatch(t *testing.T) {
	texts := []string{
		"// TODO: later", "fixme", "FIXME now", "func (s *Server) Close()", "errors.New(\"dial timeout\")",
		"TODO", "todo: accept decimals", "TODO: ACCEPT", "\\u212aelvin", "ſtop", "KELVIN", "stop",
	}
	exprs := []string{"TODO|FIXME", "(?i)todo: accept", `func \\(\\w+ \\*Server\\)`, `(?i)kelvin`, `(?i)stop`, `(?i)fixme`}
	var scratch []byte
	for _, e := range exprs {
		re := regexp.MustCompile(e)
		p := newPrefilter(e)
		for _, text := range texts {
			if re.MatchString(text) && !p.match([]byte(text), &scratch) {
				t.Errorf("%s matches %q but the prefilter drops it", e, text)
			}
		}
	}
}
