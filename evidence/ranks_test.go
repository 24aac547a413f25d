package evidence

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/assemble"
)

// rankFlow is a flow with a request and three evidence parts at 100, 110
// and 120, as `rebase` leaves a band: nothing is free above the first.
func rankFlow(t *testing.T) (*Engine, string) {
	t.Helper()
	e, root := newTestEngine(t)
	for _, n := range []string{"alpha", "bravo", "charlie"} {
		os.MkdirAll(filepath.Join(root, n), 0o755)
		os.WriteFile(filepath.Join(root, n, n+".go"), []byte("package "+n+"\n\nfunc Run() {}\n"), 0o644)
	}
	run(t, e, "flow", "new", "ranks", "--request", "Order the parts.")
	for _, n := range []string{"alpha", "bravo", "charlie"} {
		run(t, e, "evidence", "add", n+"/"+n+".go")
	}
	f, err := e.Flow()
	if err != nil {
		t.Fatal(err)
	}
	return e, f.Dir
}

// evidenceFiles lists the evidence directory, in order.
func evidenceFiles(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "ctx", "evidence"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range entries {
		names = append(names, d.Name())
	}
	return strings.Join(names, " ")
}

// TestMoveSwapsWhenNoRankIsFree: the second part of a band moves to its
// head with no free rank above the first (issue 32: `K` said "no free
// rank there: run :evidence rebase", and again after the rebase); its
// pin and skip go with it, and the printed undo puts every file and
// flow.json back byte for byte.
func TestMoveSwapsWhenNoRankIsFree(t *testing.T) {
	e, dir := rankFlow(t)
	run(t, e, "evidence", "pin", "110_bravo_go")
	run(t, e, "evidence", "toggle", "100_alpha_go")
	before := hashDir(t, dir)

	out := run(t, e, "evidence", "move", "110_bravo_go", "up")
	for _, want := range []string{"✓ 110_bravo_go -> 100_bravo_go", "✓ 100_alpha_go -> 110_alpha_go", "Undo: dossier evidence swap 100_bravo_go 110_alpha_go"} {
		if !strings.Contains(out, want) {
			t.Errorf("move says no %q:\n%s", want, out)
		}
	}
	if got, want := evidenceFiles(t, dir), "100_bravo_go.evidence.md 110_alpha_go.evidence.md.skip 120_charlie_go.evidence.md"; got != want {
		t.Errorf("after the move:\n got %s\nwant %s", got, want)
	}
	e.Reload()
	f, _ := e.Flow()
	if p, err := f.Find("100_bravo_go"); err != nil || !p.Pinned {
		t.Errorf("the pin did not follow bravo: %v %+v", err, p)
	}

	run(t, e, "evidence", "swap", "100_bravo_go", "110_alpha_go")
	if after := hashDir(t, dir); after != before {
		t.Errorf("the undo left the flow changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// TestMoveTakesAFreeRank: with room between the neighbours a move takes
// the free rank nearest the one it passes, and `rank` back undoes it.
func TestMoveTakesAFreeRank(t *testing.T) {
	e, dir := rankFlow(t)
	before := hashDir(t, dir)
	out := run(t, e, "evidence", "move", "100_alpha_go", "down")
	if !strings.Contains(out, "✓ 100_alpha_go -> 111_alpha_go") || !strings.Contains(out, "Undo: dossier evidence rank 111_alpha_go 100") {
		t.Errorf("move down:\n%s", out)
	}
	run(t, e, "evidence", "rank", "111_alpha_go", "100")
	if hashDir(t, dir) != before {
		t.Error("rank back did not restore the flow")
	}
}

// TestSwapOfOneKind: two parts of one kind trade their ids, so the files
// trade contents (through a free rank) and the pin follows the content.
func TestSwapOfOneKind(t *testing.T) {
	e, dir := rankFlow(t)
	run(t, e, "evidence", "add", "alpha/alpha.go::3", "--kind", "alpha_go", "--force")
	ev := filepath.Join(dir, "ctx", "evidence")
	whole, _ := os.ReadFile(filepath.Join(ev, "100_alpha_go.evidence.md"))
	line, _ := os.ReadFile(filepath.Join(ev, "130_alpha_go.evidence.md"))
	run(t, e, "evidence", "pin", "130_alpha_go")
	run(t, e, "evidence", "plan") // pin leaves build/ as it was; a swap rebuilds it
	before := hashDir(t, dir)

	run(t, e, "evidence", "swap", "130_alpha_go", "100_alpha_go")
	got100, _ := os.ReadFile(filepath.Join(ev, "100_alpha_go.evidence.md"))
	got130, _ := os.ReadFile(filepath.Join(ev, "130_alpha_go.evidence.md"))
	if !bytes.Equal(got100, line) || !bytes.Equal(got130, whole) {
		t.Errorf("contents did not trade places:\n100: %s\n130: %s", got100, got130)
	}
	if got := evidenceFiles(t, dir); got != "100_alpha_go.evidence.md 110_bravo_go.evidence.md 120_charlie_go.evidence.md 130_alpha_go.evidence.md" {
		t.Errorf("files: %s", got)
	}
	e.Reload()
	f, _ := e.Flow()
	if p, _ := f.Find("100_alpha_go"); p == nil || !p.Pinned {
		t.Errorf("the pin stayed with the id, not the part")
	}
	run(t, e, "evidence", "swap", "100_alpha_go", "130_alpha_go")
	if after := hashDir(t, dir); after != before {
		t.Errorf("swapping back did not restore the flow:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// TestMoveAndSwapRefusals: what cannot move says why and changes nothing.
func TestMoveAndSwapRefusals(t *testing.T) {
	e, dir := rankFlow(t)
	before := hashDir(t, dir)
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"evidence", "move", "100_alpha_go", "up"}, "100_alpha_go is the first evidence part: there is none to move past"},
		{[]string{"evidence", "move", "120_charlie_go", "down"}, "120_charlie_go is the last evidence part"},
		{[]string{"evidence", "move", "010_request", "up"}, "010_request is the first user part"},
		{[]string{"evidence", "move", "100_alpha_go", "sideways"}, `give up or down, not "sideways"`},
		{[]string{"evidence", "swap", "010_request", "100_alpha_go"}, "010_request (user) and 100_alpha_go (evidence): only parts of one role swap ranks"},
		{[]string{"evidence", "swap", "100_alpha_go", "100_alpha_go"}, "swap 100_alpha_go with itself"},
		{[]string{"evidence", "swap", "100_alpha_go", "150_nothing"}, "150_nothing"},
	} {
		err := e.Exec(context.Background(), c.words, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", strings.Join(c.words, " "), err, c.want)
		}
	}
	if hashDir(t, dir) != before {
		t.Error("a refused move changed the flow")
	}
}

// TestPlanMove: the free rank nearest the neighbour, never past the part
// beyond it nor out of the role's ranks; a swap when none is free.
func TestPlanMove(t *testing.T) {
	ev := func(id string, r int) Slot { return Slot{ID: id, Rank: r, Role: assemble.Evidence} }
	parts := []Slot{{ID: "010_request", Rank: 10, Role: assemble.User}, ev("100_a", 100), ev("101_b", 101), ev("105_c", 105), ev("999_d", 999)}
	for _, c := range []struct {
		i, dir int
		want   Move
	}{
		{2, -1, Move{ID: "101_b", With: "100_a", From: 101, To: 100}}, // 099 is the user's
		{1, 1, Move{ID: "100_a", From: 100, To: 102}},
		{3, -1, Move{ID: "105_c", With: "101_b", From: 105, To: 101}}, // 100 and 101 both held
		{3, 1, Move{ID: "105_c", With: "999_d", From: 105, To: 999}},  // 999 is the last rank
		{4, -1, Move{ID: "999_d", From: 999, To: 104}},
	} {
		got, err := PlanMove(parts, c.i, c.dir)
		if err != nil || got != c.want {
			t.Errorf("move %s %d: got %+v %v, want %+v", parts[c.i].ID, c.dir, got, err, c.want)
		}
	}
	if _, err := PlanMove([]Slot{ev("100_a", 100), ev("100_b", 100)}, 1, -1); err == nil || !strings.Contains(err.Error(), "share rank 100: run `evidence rebase`") {
		t.Errorf("shared rank: %v", err)
	}
}
