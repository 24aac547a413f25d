package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/store"
)

// An interrupted index is not a damaged one: doctor says it is
// incomplete, exits 0 and writes nothing, and the next index resumes it
// instead of setting it aside and rebuilding (issue 30). Both a first run
// and an incremental one are stopped by SIGINT after a batch is committed
// and before the summary is.
func TestDoctorAfterInterruptedIndex(t *testing.T) {
	root := workspace(t, 1300)
	interruptIndex(t, root, func() { os.Remove(store.Path(root)) }, func(tx *store.Tx, _ index.Summary, summarized bool) bool {
		return !summarized && tx.Counts()["files"] > 0
	})
	doctorIncomplete(t, root, "the first `dossier index` did not finish (it was interrupted)")
	resumes(t, root)

	var done index.Summary
	var gen uint64
	readIndex(t, root, func(tx *store.Tx, sum index.Summary, _ bool) bool { done, gen = sum, tx.Generation(); return true })
	// More files than a batch holds, so one is committed before the end.
	files, _ := filepath.Glob(filepath.Join(root, "pkg*", "f*.go"))
	edit := func() {
		for _, p := range files[:1100] {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("// changed\n")
			f.Close()
		}
	}
	interruptIndex(t, root, edit, func(tx *store.Tx, sum index.Summary, _ bool) bool {
		return tx.Generation() != gen && sum.Finished.Equal(done.Finished)
	})
	doctorIncomplete(t, root, "the last `dossier index` did not finish (it was interrupted)")
	resumes(t, root)
}

// interruptIndex runs prepare, then `dossier index`, and sends it SIGINT
// as soon as the index holds what interrupted says an interrupted run
// leaves; it tries again (after prepare) when the run finished first.
func interruptIndex(t *testing.T, root string, prepare func(), interrupted func(*store.Tx, index.Summary, bool) bool) {
	t.Helper()
	for range 5 {
		prepare()
		cmd := dossier("index", "--root", root)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		var err error
	poll:
		for {
			select {
			case err = <-exited:
				break poll
			case <-time.After(5 * time.Millisecond):
				if readIndex(t, root, interrupted) {
					cmd.Process.Signal(os.Interrupt)
					select {
					case err = <-exited:
					case <-time.After(time.Minute): // a hang, not a slow stop
						cmd.Process.Kill()
						t.Fatalf("index still running a minute after SIGINT\n%s", errb.String())
					}
					break poll
				}
			}
		}
		var ee *exec.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != exitInterrupted) {
			t.Fatalf("index: %v\n%s", err, errb.String())
		}
		if readIndex(t, root, interrupted) {
			return
		}
	}
	t.Fatal("the index run finished before it could be interrupted, 5 times")
}

// readIndex calls fn with a read transaction of root's index and its
// summary, if it can be opened; false when it cannot.
func readIndex(t *testing.T, root string, fn func(tx *store.Tx, sum index.Summary, summarized bool) bool) bool {
	t.Helper()
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		return false
	}
	defer db.Close()
	ok := false
	db.View(func(tx *store.Tx) error {
		var sum index.Summary
		summarized, err := tx.Summary(&sum)
		ok = err == nil && fn(tx, sum, summarized)
		return nil
	})
	return ok
}

// doctorIncomplete checks that doctor finds no problem in the index of an
// interrupted run, says it is incomplete, exits 0 and changes nothing in
// .dossier (no damage note: the next index must not rebuild).
func doctorIncomplete(t *testing.T, root, says string) {
	t.Helper()
	before := tree(t, store.Dir(root))
	out, errOut, code := run(t, "doctor", "--root", root)
	if code != 0 || !strings.Contains(out, "no problems found") || !strings.Contains(out, "incomplete: "+says) ||
		!strings.Contains(out, "the next `dossier index` resumes it") {
		t.Errorf("doctor after an interrupted index: exit %d\n%s%s", code, out, errOut)
	}
	out, _, code = run(t, "doctor", "--root", root, "--json")
	var rep struct {
		OK         bool
		Incomplete string
		Problems   []store.Problem
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || !rep.OK || !strings.Contains(rep.Incomplete, says) || len(rep.Problems) != 0 {
		t.Errorf("doctor --json after an interrupted index: exit %d, %v\n%s", code, err, out)
	}
	if tree(t, store.Dir(root)) != before {
		t.Error("doctor changed .dossier")
	}
}

// resumes checks that the next index completes an interrupted one where
// it stopped: no rebuild, the files it wrote kept, and the index complete.
func resumes(t *testing.T, root string) {
	t.Helper()
	out, errOut, code := run(t, "index", "--root", root, "--json")
	var sum index.Summary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || code != 0 || strings.Contains(errOut, "damaged") || sum.RebuiltDamaged || sum.Unchanged == 0 {
		t.Fatalf("index after an interrupted one: exit %d, %v, rebuilt_damaged %v, unchanged %d\n%s", code, err, sum.RebuiltDamaged, sum.Unchanged, errOut)
	}
	if out, errOut, code := run(t, "doctor", "--root", root, "--json"); code != 0 || !strings.Contains(out, `"ok": true`) || strings.Contains(out, "incomplete") {
		t.Errorf("doctor after the resumed index: exit %d\n%s%s", code, out, errOut)
	}
}
