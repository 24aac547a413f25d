package evidence

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStatusHeadingsAndColumns: status lists the request under "User
// request" (not "System"), keeps its columns in line when a part id is
// longer than the usual width, and a new flow without a request says how
// to write one, /request in the workbench among the ways.
func TestStatusHeadingsAndColumns(t *testing.T) {
	e, root := newTestEngine(t)
	// The file's name makes a part id past the usual 28 columns.
	long := "a_file_with_a_name_long_enough_to_overflow.go"
	os.WriteFile(filepath.Join(root, long), []byte("package a\n\nfunc A() {}\n\nfunc B() {}\n"), 0o644)
	if out := run(t, e, "flow", "new", "demo"); !strings.Contains(out, "/request TEXT") || !strings.Contains(out, "evidence add --role user") {
		t.Errorf("flow new without a request does not say how to write one:\n%s", out)
	}
	run(t, e, "evidence", "add", "--role", "system", "--text", "Be brief.")
	run(t, e, "evidence", "add", "--role", "user", "--text", "Why?")
	os.WriteFile(filepath.Join(root, "b.go"), []byte("package a\n"), 0o644)
	run(t, e, "evidence", "add", long+"::1,3", "b.go")
	out := run(t, e, "evidence", "status")
	var headings []string
	col := -1
	for line := range strings.Lines(out) {
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") && !strings.Contains(line, ":") {
			headings = append(headings, strings.TrimSpace(line))
		}
		if strings.HasPrefix(line, "    ") {
			// The role column starts at the same place in every row.
			i := strings.Index(line, " system ") + strings.Index(line, " user ") + strings.Index(line, " evidence ") + 2
			if col >= 0 && i != col {
				t.Errorf("row out of line (role at %d, not %d):\n%s", i, col, out)
			}
			col = i
		}
	}
	if !strings.Contains(out, "a_file_with_a_name_long_enough_to_overflow") {
		t.Fatalf("no long part id:\n%s", out)
	}
	if got := strings.Join(headings, ","); got != "System,User request,Critical" {
		t.Errorf("headings %q, want System,User request,Critical:\n%s", got, out)
	}
}
