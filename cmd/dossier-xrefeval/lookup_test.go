package main

import (
	"testing"

	"github.com/dossierhq/dossier/cmd/dossier-xrefeval/truth"
	"github.com/dossierhq/dossier/index/related"
)

// TestLookupOverloads: of two overloads, a caller's ref maps to the one
// its chunk holds, a callee's to the first at or after its line.
func TestLookupOverloads(t *testing.T) {
	e := newEval(&truth.File{Defs: []truth.Def{
		{Path: "A.java", Line: 4, End: 6, Name: "f", Container: "A"},
		{Path: "A.java", Line: 9, End: 12, Name: "f", Container: "A"},
		{Path: "A.java", Line: 14, End: 15, Name: "g", Container: "A"},
	}})
	for _, c := range []struct {
		ref  related.Ref
		want int
	}{
		{related.Ref{Path: "A.java", Symbol: "A.f", Line: 11, StartLine: 8, EndLine: 12}, 1}, // a caller
		{related.Ref{Path: "A.java", Symbol: "A.f", Line: 7}, 1},                             // a callee, its doc comment first
		{related.Ref{Path: "A.java", Symbol: "A.f", Line: 3}, 0},
		{related.Ref{Path: "A.java", Symbol: "A.g", Line: 13}, 2},
	} {
		if got, ok := e.lookup(c.ref); !ok || got != c.want {
			t.Errorf("lookup %+v: %d %v, want %d", c.ref, got, ok, c.want)
		}
	}
}
