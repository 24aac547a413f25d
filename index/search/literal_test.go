package search

import (
	"bytes"
	"regexp"
	"strings"
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
		want string // clauses joined by " & ", literals by "|"; "" for no prefilter
	}{
		{"TODO|FIXME", "TODO|FIXME"},
		{`(?i)todo: accept`, "todo: accept"},
		{`func \(\w+ \*Server\)`, "func ( &  *Server)"},
		{`errors\.New\("[^"]*timeout`, `errors.New(" & timeout`},
		{`a.*b`, ""},       // one-byte literals filter nothing
		{`x*y?`, ""},       // nothing required
		{`(foo|ba*r)`, ""}, // one branch requires only "b", "r"
		{`(abc)+d`, "abc"},
		{`(?i)café`, ""}, // non-ASCII folding: no filter
		{`(?i)(handshake|hello) failure`, "andshake|ello &  failure"}, // the parser factors out the "h"
	}
	for _, c := range cases {
		p := newPrefilter(c.expr)
		var got []string
		if p != nil {
			for _, clause := range p.clauses {
				var lits []string
				for _, l := range clause {
					lits = append(lits, string(l))
				}
				got = append(got, strings.Join(lits, "|"))
			}
		}
		if g := strings.Join(got, " & "); !strings.EqualFold(g, c.want) {
			t.Errorf("%s: prefilter %q, want %q", c.expr, g, c.want)
		}
	}
}

// TestPrefilterNeverDropsAMatch checks the filter against the regexp
// itself: whenever the expression matches a text, the filter lets it by.
func TestPrefilterNeverDropsAMatch(t *testing.T) {
	texts := []string{
		"// TODO: later", "fixme", "FIXME now", "func (s *Server) Close()", "errors.New(\"dial timeout\")",
		`errors.New("x") // timeout`, "LATER: now", "later:accept",
		"TODO", "todo: accept decimals", "TODO: ACCEPT", "\u212aelvin", "ſtop", "KELVIN", "stop",
	}
	exprs := []string{"TODO|FIXME", "(?i)todo: accept", `func \(\w+ \*Server\)`, `(?i)kelvin`, `(?i)stop`, `(?i)fixme`,
		`errors\.New\("[^"]*timeout`, `(?i)(todo|later): (accept|now)`}
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
