package jsapp

import (
	"testing"

	"github.com/dossierhq/dossier/index/appgraph"
)

// A panic of an extractor's walk reaches the index as an appgraph.Failure
// at the line the walk was reading, which the index reports.
func TestFailureIsLocated(t *testing.T) {
	e := newX([]byte("a();\nb();\nc();\n"), "x.js")
	e.at = 5 // b(), on line 2
	defer func() {
		if f, ok := recover().(appgraph.Failure); !ok || f.Line != 2 || f.Err != "boom" {
			t.Errorf("recovered %#v, want a Failure at line 2", f)
		}
	}()
	func() {
		defer e.located()
		panic("boom")
	}()
}
