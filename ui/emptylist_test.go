package ui

import (
	"strings"
	"testing"
)

// TestEmptyListSaysRequest: a new flow's empty evidence list names
// /request, how the request is written, beside search and commands.
func TestEmptyListSaysRequest(t *testing.T) {
	out := listPane{}.view(testStyles(), snapshot{}, 80, 10, true)
	if !strings.Contains(out, "/request TEXT") {
		t.Errorf("the empty list does not name /request:\n%s", out)
	}
}
