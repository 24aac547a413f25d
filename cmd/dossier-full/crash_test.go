package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dossierhq/dossier/store"
)

// TestCrash kills dossier's writing commands (a full index, an incremental
// one, a watcher, flow commands) at random points, by SIGKILL or SIGTERM,
// and checks after every kill that nothing is damaged or lost and that the
// next run completes to the index a fresh run of the same tree builds.
//
// It runs only with DOSSIER_CRASH=N (`make crash` runs N=50);
// DOSSIER_CRASH_SEED repeats a run.
func TestCrash(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("DOSSIER_CRASH"))
	if n <= 0 {
		t.Skip("set DOSSIER_CRASH=N (or run `make crash`) to kill commands N times")
	}
	seed, err := strconv.ParseUint(os.Getenv("DOSSIER_CRASH_SEED"), 10, 64)
	if err != nil {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (DOSSIER_CRASH_SEED=%d repeats this run)", seed, seed)
	c := &crasher{t: t, rng: rand.New(rand.NewPCG(seed, seed^0x5eed)), root: workspace(t, 1500), stats: map[string]*crashStats{}}
	c.must("index")
	c.must("flow", "new", "crash")
	c.must("evidence", "add", "pkg000/f0.go", "pkg001/f50.go::3,9", "@F2_3")
	for i := range n {
		c.round(i)
	}
	c.compareWithFresh()
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range c.stats {
			if !yield(k) {
				return
			}
		}
	})
	for _, name := range names {
		s := c.stats[name]
		t.Logf("%-12s %2d runs: %2d killed mid-run (%d by SIGTERM, slowest to stop %v), %2d finished first; longest life %v",
			name, s.runs, s.killed, s.term, s.slowestStop.Round(time.Millisecond), s.runs-s.killed, s.longest.Round(time.Millisecond))
	}
	t.Logf("%d kills: 0 damaged, 0 lost, every next run completed (%d exact comparisons with a fresh index)", n, c.compared)
}

type crashStats struct {
	runs, killed, term int
	longest            time.Duration
	// slowestStop is the longest a command took to end after SIGTERM.
	slowestStop time.Duration
}

type crasher struct {
	t        *testing.T
	rng      *rand.Rand
	root     string
	stats    map[string]*crashStats
	compared int
}

// must runs a command to its end and fails the test if it fails.
func (c *crasher) must(args ...string) string {
	c.t.Helper()
	cmd := dossier(append(args, "--root", c.root)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		c.t.Fatalf("dossier %s: %v\n%s%s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

// round picks a command, starts it, kills it after a random delay and
// checks the workspace.
func (c *crasher) round(i int) {
	t := c.t
	kinds := []string{"full", "incremental", "watch", "flow"}
	kind := kinds[c.rng.IntN(len(kinds))]
	var args []string
	var during func(stop <-chan struct{})
	maxDelay := 2 * time.Second
	switch kind {
	case "full":
		os.Remove(store.Path(c.root))
		args = []string{"index"}
	case "incremental":
		c.mutate(50 + c.rng.IntN(300))
		args = []string{"index"}
	case "watch":
		args = []string{"index", "--watch"}
		during = func(stop <-chan struct{}) {
			for {
				select {
				case <-stop:
					return
				case <-time.After(time.Duration(20+c.rng.IntN(80)) * time.Millisecond):
					c.mutate(1 + c.rng.IntN(20))
				}
			}
		}
	case "flow":
		flows := [][]string{
			{"evidence", "add", fmt.Sprintf("pkg%03d/f%d.go", c.rng.IntN(30), 0), "@F1_2"},
			{"evidence", "refresh"},
			{"evidence", "rebase"},
			{"evidence", "fit", "600"},
			{"evidence", "toggle", "off", "100-999"},
			{"evidence", "toggle", "on", "100-999"},
			{"assemble", "--format", "mdctx"},
			{"evidence", "gather", "explain", "pkg002/f100.go"},
		}
		args = flows[c.rng.IntN(len(flows))]
		maxDelay = 150 * time.Millisecond
		if c.rng.IntN(3) == 0 {
			c.mutate(5) // something for refresh to do
		}
	}
	before := c.flowFiles()
	s := c.stats[kind]
	if s == nil {
		s = &crashStats{}
		c.stats[kind] = s
	}
	s.runs++
	cmd := dossier(append(args, "--root", c.root)...)
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := make(chan struct{})
	if during != nil {
		go during(stop)
	}
	delay := time.Duration(c.rng.Int64N(int64(maxDelay)))
	sig := syscall.SIGKILL
	if c.rng.IntN(3) == 0 {
		sig = syscall.SIGTERM
	}
	var err error
	select {
	case err = <-exited:
	case <-time.After(delay):
		cmd.Process.Signal(sig)
		signalled := time.Now()
		s.killed++
		if sig == syscall.SIGTERM {
			s.term++
		}
		select {
		case err = <-exited:
			if sig == syscall.SIGTERM {
				s.slowestStop = max(s.slowestStop, time.Since(signalled))
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("round %d: dossier %s still running 20s after %v", i, strings.Join(args, " "), sig)
		}
	}
	close(stop)
	s.longest = max(s.longest, time.Since(start))
	if err != nil && !isKilled(err) && kind != "flow" {
		t.Fatalf("round %d: dossier %s failed by itself: %v\n%s", i, strings.Join(args, " "), err, errb.String())
	}
	if strings.Contains(errb.String(), "goroutine ") {
		t.Fatalf("round %d: dossier %s printed a Go trace:\n%s", i, strings.Join(args, " "), errb.String())
	}
	c.check(i, kind, before)
}

func isKilled(err error) bool {
	ee, ok := err.(*exec.ExitError)
	if !ok {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && (ws.Signaled() || ws.ExitStatus() == exitInterrupted || ws.ExitStatus() == 128+int(syscall.SIGTERM))
}

// mutate changes, adds or removes n files of the workspace.
func (c *crasher) mutate(n int) {
	for range n {
		p := filepath.Join(c.root, fmt.Sprintf("pkg%03d", c.rng.IntN(30)), fmt.Sprintf("m%d.go", c.rng.IntN(400)))
		switch c.rng.IntN(4) {
		case 0:
			os.Remove(p)
		default:
			body := fmt.Sprintf("package p\n\n// M%d changes %d.\nfunc M%d() int { return %d }\n", c.rng.IntN(1000), c.rng.IntN(1000), c.rng.IntN(1<<20), c.rng.IntN(1000))
			os.WriteFile(p, []byte(body), 0o644)
		}
	}
}

// flowFiles lists the current flow's part files (active, skipped and
// removed) by name.
func (c *crasher) flowFiles() map[string]bool {
	out := map[string]bool{}
	filepath.WalkDir(filepath.Join(store.Dir(c.root), "flows"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".md.skip") {
			out[filepath.Base(p)] = true
		}
		return nil
	})
	return out
}

// check verifies the workspace after a kill: the index passes bbolt's
// check and dossier's own and doctor's, the flow reads, no part was lost, and the next
// run completes.
func (c *crasher) check(i int, kind string, before map[string]bool) {
	t := c.t
	t.Helper()
	if db, err := store.Open(store.Path(c.root), store.Options{ReadOnly: true}); err == nil {
		if err := db.Check(); err != nil {
			t.Fatalf("round %d (%s): index damaged: %v", i, kind, err)
		}
		db.Close()
		// Interrupted is not damaged: doctor finds nothing (and notes
		// nothing that would make the next run rebuild).
		c.must("doctor")
	} else if !strings.Contains(err.Error(), "no index") && !strings.Contains(err.Error(), "empty") && !strings.Contains(err.Error(), "older dossier") {
		t.Fatalf("round %d (%s): index unreadable after a kill: %v", i, kind, err)
	}
	c.must("evidence", "status")
	for line := range strings.Lines(c.must("flow", "show")) {
		dir, ok := strings.CutPrefix(line, "Dir:")
		if !ok {
			continue
		}
		flowJSON := filepath.Join(strings.TrimSpace(dir), "flow.json")
		if raw, err := os.ReadFile(flowJSON); err != nil || !json.Valid(raw) {
			t.Fatalf("round %d (%s): %s unreadable or not valid JSON after a kill (%v):\n%s", i, kind, flowJSON, err, raw)
		}
	}
	after := c.flowFiles()
	if kind == "flow" {
		for name := range before {
			if !after[name] && !after[strings.TrimSuffix(name, ".skip")] && !after[name+".skip"] && !renamed(name, after) {
				t.Fatalf("round %d (%s): part %s lost after a kill (now %v)", i, kind, name, after)
			}
		}
	}
	c.must("index")
	if i%10 == 9 {
		c.compareWithFresh()
	}
}

// renamed reports whether a part file lives on under another rank (rebase
// renumbers parts, keeping their kind and slug).
func renamed(name string, files map[string]bool) bool {
	_, rest, ok := strings.Cut(name, "_")
	if !ok {
		return false
	}
	for f := range files {
		if _, r, ok := strings.Cut(f, "_"); ok && strings.TrimSuffix(r, ".skip") == strings.TrimSuffix(rest, ".skip") {
			return true
		}
	}
	return false
}

// compareWithFresh checks that the index the kills left behind, once
// completed, answers exactly as a fresh index of a copy of the tree.
func (c *crasher) compareWithFresh() {
	c.t.Helper()
	c.compared++
	compareWithFresh(c.t, c.root, "F3_4 does a thing\nchanges\nreturn x\nM12\nthing x int\n")
}

// compareWithFresh checks that the index of root answers queries (one a
// line) exactly as a fresh index of a copy of its tree.
func compareWithFresh(t *testing.T, root, queries string) {
	t.Helper()
	fresh := t.TempDir()
	if err := exec.Command("cp", "-a", root+"/.", fresh).Run(); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(store.Dir(fresh))
	cmd := dossier("index", "--root", fresh)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fresh index: %v\n%s", err, out)
	}
	search := func(root string) string {
		cmd := dossier("search", "--json", "-k", "20", "--root", root)
		cmd.Stdin = strings.NewReader(queries)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("search %s: %v", root, err)
		}
		var b strings.Builder
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var r struct {
				Query   string
				Results []struct {
					Path      string
					StartLine int `json:"start_line"`
					Score     float64
				}
			}
			if dec.Decode(&r) != nil {
				break
			}
			fmt.Fprintf(&b, "%s:", r.Query)
			for _, x := range r.Results {
				fmt.Fprintf(&b, " %s:%d=%v", x.Path, x.StartLine, x.Score)
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	if got, want := search(root), search(fresh); got != want {
		t.Errorf("the index answers differently from a fresh index of the same tree:\n got %s\nwant %s", got, want)
	}
}
