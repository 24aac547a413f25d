package terms

import (
	"reflect"
	"strings"
	"testing"
)

func all(text string) []string {
	var out []string
	New().Each(text, func(s string) { out = append(out, s) })
	return out
}

func TestSplit(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"ReadFile", []string{"read", "file", "readfile"}},
		{"parseHTTPRequest", []string{"pars", "http", "request", "parsehttprequest"}},
		{"snake_case_name", []string{"snake", "case", "name", "snakecasename"}},
		{"utf8Valid", []string{"utf8", "valid", "utf8valid"}},
		{"base64 sha256", []string{"base64", "sha256"}},
		{"the address is a loopback address", []string{"address", "loopback", "address"}},
		{"net/http/server.go", []string{"net", "http", "server", "go"}},
		{"x := 1; y = 123456", []string{"1"}},
		{"Parsing parses parsed", []string{"pars", "pars", "pars"}},
		{"__init__", []string{"init"}},
		{"héllo wörld", []string{"héllo", "wörld"}},
		{strings.Repeat("ab", 40), nil},
	}
	for _, c := range cases {
		if got := all(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("terms(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestQueryMatchesIdentifier is the point of the package: plain words and
// the identifier they name share terms.
func TestQueryMatchesIdentifier(t *testing.T) {
	tok := New()
	code := tok.Terms("func (ip Addr) IsLoopback() bool")
	for _, q := range []string{"loopback", "is loopback", "IsLoopback", "isloopback"} {
		for term := range tok.Terms(q) {
			if term == "is" {
				continue
			}
			if code[term] == 0 {
				t.Errorf("query %q: term %q not in the code's terms %v", q, term, code)
			}
		}
	}
}

func TestInvalidUTF8(t *testing.T) {
	if got := all("ok \xff\xfebad good"); !reflect.DeepEqual(got, []string{"ok", "good"}) {
		t.Errorf("got %q", got)
	}
}

func FuzzEach(f *testing.F) {
	f.Add("HTTPServer_v2 x\xff")
	f.Fuzz(func(t *testing.T, s string) {
		New().Each(s, func(term string) {
			if term == "" {
				t.Fatalf("empty term from %q", s)
			}
		})
	})
}
