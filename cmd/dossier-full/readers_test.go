package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestReadersDuringIndex proves searches and stats running while a full
// `dossier index` writes (batches, the final phase, the snapshot rebuild)
// are never refused: each waits its turn at most.
func TestReadersDuringIndex(t *testing.T) {
	root := workspace(t, 3000)
	ix := dossier("index", "--root", root)
	var ixErr bytes.Buffer
	ix.Stderr = &ixErr
	if err := ix.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ix.Wait() }()
	ok, notYet := 0, 0
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("index: %v: %s", err, ixErr.String())
			}
			running = false
		default:
		}
		for _, args := range [][]string{{"search", "--root", root, "--mode", "text", "F7_3"}, {"stats", "--root", root}} {
			out, err := dossier(args...).CombinedOutput()
			switch {
			case err == nil:
				ok++
			case strings.Contains(string(out), "no index") || strings.Contains(string(out), "no completed run"):
				notYet++ // before the first commit, or before the first summary
			default:
				t.Fatalf("%s during the index run: %v: %s", args[0], err, out)
			}
		}
	}
	t.Logf("%d reads answered, %d before there was anything to read", ok, notYet)
	if ok == 0 {
		t.Errorf("no read answered")
	}
}
