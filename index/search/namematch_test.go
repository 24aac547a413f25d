package search_test

import (
	"testing"

	"github.com/dossierhq/dossier/index/search"
)

// nameFixture holds a function whose name the query says part by part
// (splitAddress) and one whose body says the query's words more often
// (dialAll), as a question in plain words meets a code base.
var nameFixture = map[string]string{
	"netkit/hostport.go": `package netkit

import "strings"

func splitAddress(hostport string) (host, port string) {
	i := strings.LastIndexByte(hostport, ':')
	if i < 0 {
		return hostport, ""
	}
	return hostport[:i], hostport[i+1:]
}
`,
	"netkit/dial.go": `package netkit

// dialAll dials every network address in turn until one answers. Each
// address names a host and a port; the host of an address is looked up,
// the port of an address is checked, and the network address is split
// into its host and its port before the connection is made.
func dialAll(network string, addrs []string) (Conn, error) {
	var last error
	for _, address := range addrs {
		host, port := splitAddress(address) // host and port of the address
		conn, err := dial(network, host, port)
		if err == nil {
			return conn, nil
		}
		last = err
	}
	return nil, last
}
`,
}

// TestNameCoverRanksTheNamedFunction proves hybrid mode's name prior: text
// alone ranks the body that repeats the query's words first, and hybrid
// ranks first the function whose name the query says part by part.
func TestNameCoverRanksTheNamedFunction(t *testing.T) {
	root := goTree(t, nameFixture)
	const q = "split a network address into its host and port"
	rank := func(mode search.Mode) map[string]int {
		resp := query(t, root, search.Query{Text: q, Mode: mode, K: 10})
		pos := map[string]int{}
		for i, r := range resp.Results {
			if _, ok := pos[r.Symbol]; !ok {
				pos[r.Symbol] = i + 1
			}
			t.Logf("%s: %d %s %s %.3f", mode, i+1, r.Path, r.Symbol, r.Score)
		}
		return pos
	}
	text := rank(search.Text)
	if text["dialAll"] == 0 || (text["splitAddress"] != 0 && text["splitAddress"] < text["dialAll"]) {
		t.Fatalf("text ranks splitAddress %d, dialAll %d: the fixture no longer needs the name prior", text["splitAddress"], text["dialAll"])
	}
	if hybrid := rank(search.Hybrid); hybrid["splitAddress"] != 1 {
		t.Errorf("hybrid ranks splitAddress %d (dialAll %d), want 1", hybrid["splitAddress"], hybrid["dialAll"])
	}
}

// TestNameCover: the share of a name's own parts the query's terms hold,
// split and stemmed as the index splits them, the joined form not counted
// as a part, the type of a method not part of its name.
func TestNameCover(t *testing.T) {
	e := search.NewEngine()
	for _, c := range []struct {
		symbol, query string
		want          float64
	}{
		{"splitAddress", "split a network address", 1},
		{"ReadFile", "read the whole thing", 0.5},
		{"Conn.close", "close the connection", 1},
		{"Adapter.__init__", "init", 1},
		{"parseHTTPRequest", "parse the request", 2.0 / 3},
		{"", "anything", 0},
		{"dialAll", "split a network address", 0},
	} {
		if got := search.NameCover(e, c.symbol, c.query); got != c.want {
			t.Errorf("NameCover(%q, %q) = %v, want %v", c.symbol, c.query, got, c.want)
		}
	}
}
