package search

import (
	"slices"
	"testing"

	"github.com/dossierhq/dossier/index/describe"
)

// TestDescribedKinds holds the written-out kinds to the describers'
// registry, so a new describer's kind is a type filter at once.
func TestDescribedKinds(t *testing.T) {
	var want []string
	for _, k := range describe.Default().Kinds() {
		want = append(want, string(k))
	}
	if !slices.Equal(describedKinds, want) {
		t.Fatalf("describedKinds = %q\nthe describers' kinds are %q: update types.go", describedKinds, want)
	}
}
