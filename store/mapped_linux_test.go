package store

import (
	"bytes"
	"crypto/sha256"
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssFile is the process's resident memory of mapped files, in bytes.
func rssFile(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("RssFile line %q: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// TestReleaseMappedKeepsBytes proves ReleaseMapped lets go of the pages a
// read mapped in, and that a value handed out before it still reads the
// same bytes after.
func TestReleaseMappedKeepsBytes(t *testing.T) {
	db, _ := openTest(t)
	big := make([]byte, 32<<20)
	for i := range big {
		big[i] = byte(i*131 + i>>11)
	}
	stageBig(t, db, big)
	err := db.View(func(tx *Tx) error {
		v := tx.SnapshotSealed([]byte("big")).v
		before := rssFile(t)
		sum := sha256.Sum256(v) // maps every page of the value in
		mapped := rssFile(t)
		if mapped-before < 24<<20 {
			t.Skipf("reading 32 MB mapped in only %d KB: the kernel keeps no count to test against", (mapped-before)>>10)
		}
		tx.ReleaseMapped()
		if after := rssFile(t); mapped-after < 24<<20 {
			t.Errorf("ReleaseMapped let go of %d KB of a 32 MB value's pages", (mapped-after)>>10)
		}
		if again := sha256.Sum256(v); again != sum || !bytes.Contains(v, big[:1<<20]) {
			t.Error("the value reads other bytes after ReleaseMapped")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
