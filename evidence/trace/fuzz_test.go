package trace

import (
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that every ref quotes the
// output: a non-empty Path that occurs in the ANSI-stripped input (a JVM
// frame's file name, which Parse places under its package), and
// non-negative numbers. Resolve must not panic on the result either.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.txt")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("a.go:1:1: x\r\n\x1b[31mb.c:2:3: error: y\x1b[0m\n")
	f.Fuzz(func(t *testing.T, in string) {
		refs := Parse(in)
		plain := stripANSI(in)
		for _, r := range refs {
			if r.Path == "" || r.Line < 0 || r.Col < 0 || r.Frame < 0 {
				t.Fatalf("bad ref %+v", r)
			}
			quoted := r.Path
			if r.Format == FormatJava {
				quoted = path.Base(r.Path) // placed under its package's directory
			}
			if !strings.Contains(plain, quoted) {
				t.Fatalf("path %q not in input", r.Path)
			}
			if len(r.Message) > maxMessage {
				t.Fatalf("message of %d bytes", len(r.Message))
			}
		}
		ResolveWith(refs, "/w", func(string) bool { return true }, func(string) []string { return nil })
	})
}

// syntheticLog builds about size bytes of CI-like output: mostly noise
// with a failure of some format every few dozen lines.
func syntheticLog(size int) string {
	noise := []string{
		"2024-05-01T10:00:00.123Z INFO  request id=4f2a status=200 took=12ms",
		"=== RUN   TestSomething/case_with_a_long_name",
		"--- PASS: TestSomething/case_with_a_long_name (0.00s)",
		"npm WARN deprecated inflight@1.0.6: This module is not supported",
		"   Compiling serde v1.0.197",
		"  ✓ renders the header (12 ms)",
		"[INFO] Building jar: /home/runner/work/app/target/app.jar",
	}
	failures := []string{
		"    handler_test.go:%d: got 1, want 2",
		"./pkg/store/db.go:%d:5: undefined: sqlOpen",
		"  File \"/srv/app/handlers.py\", line %d, in handler",
		"    at handler (/home/dev/app/src/server.js:%d:11)",
		"src/a.ts(%d,5): error TS2322: Type 'string' is not assignable to type 'number'.",
		"src/main.c:%d:5: error: 'y' undeclared (first use in this function)",
		"  --> src/main.rs:%d:5",
		"lint: docs/guide.md:%d trailing whitespace",
	}
	var b strings.Builder
	b.Grow(size + 200)
	for i := 0; b.Len() < size; i++ {
		if i%40 == 39 {
			f := failures[(i/40)%len(failures)]
			b.WriteString(strings.Replace(f, "%d", strconv.Itoa(i%5000+1), 1))
		} else {
			b.WriteString(noise[i%len(noise)])
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkParse10MB parses a 10 MB synthetic log; run with
// go test -run '^$' -bench Parse10MB ./evidence/trace.
func BenchmarkParse10MB(b *testing.B) {
	log := syntheticLog(10 << 20)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		if len(Parse(log)) == 0 {
			b.Fatal("no refs")
		}
	}
}
