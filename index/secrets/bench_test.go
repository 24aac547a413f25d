package secrets

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"
)

// gorootTexts reads the Go files of $GOROOT/src/<dir>.
func gorootTexts(b *testing.B, dir string) (paths, texts []string, size int64) {
	root := filepath.Join(runtime.GOROOT(), "src", dir)
	filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() && filepath.Ext(p) == ".go" {
			if data, err := os.ReadFile(p); err == nil {
				paths, texts = append(paths, p), append(texts, string(data))
				size += int64(len(data))
			}
		}
		return nil
	})
	if len(texts) == 0 {
		b.Skip("no Go sources under", root)
	}
	return paths, texts, size
}

// BenchmarkScan scans the Go sources of GOROOT/src/net (about 3 MB) with
// the keyword windows, one core.
func BenchmarkScan(b *testing.B) {
	paths, texts, size := gorootTexts(b, "net")
	Load()
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, t := range texts {
			Scan(paths[j], t)
		}
	}
}

// BenchmarkScanWholeText is what gitleaks' own detector does with the same
// rules: every rule whose keyword occurs runs over the whole text.
func BenchmarkScanWholeText(b *testing.B) {
	paths, texts, size := gorootTexts(b, "net")
	Load() // silences the library's logger
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, t := range texts {
			d.Detect(detect.Fragment{Raw: t, FilePath: paths[j]})
		}
	}
}

// BenchmarkLoad reads the rule set, as the first scan of a process does
// (each rule compiles when a text first needs it: BenchmarkLoadAll).
func BenchmarkLoad(b *testing.B) {
	for i := 0; i < b.N; i++ {
		load()
	}
}

// BenchmarkLoadAll reads the rule set and compiles every rule and
// allowlist.
func BenchmarkLoadAll(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s := load()
		s.base()
		for _, r := range s.rules {
			r.compiled()
			r.allowlists()
		}
	}
}

// firstScanTexts are what a one-shot process scans first: a Go file of
// GOROOT whose keywords hold no secret (bytes.go: a few rules compile for
// it), the fixture (its four rules and the generic one compile) and a line
// without a keyword (nothing compiles).
func firstScanTexts(b *testing.B) map[string]string {
	src, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "bytes", "bytes.go"))
	if err != nil {
		b.Skip(err)
	}
	text, _ := Fixture()
	return map[string]string{"plain": "x := 1\n", "gofile": string(src), "fixture": text}
}

// BenchmarkFirstScan is the first Scan of a process: the rule set read
// anew each time (the process-wide scanner forgotten), then one text
// scanned, compiling the rules its keywords name. BenchmarkScanAgain is
// the same scan once all is loaded; the difference is what a one-shot
// process pays before its first finding.
func BenchmarkFirstScan(b *testing.B) {
	for name, text := range firstScanTexts(b) {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				loadOnce, loaded = sync.Once{}, nil
				Scan("a.go", text)
			}
		})
	}
}

// BenchmarkScanAgain scans the texts of BenchmarkFirstScan with the rules
// loaded and compiled.
func BenchmarkScanAgain(b *testing.B) {
	for name, text := range firstScanTexts(b) {
		b.Run(name, func(b *testing.B) {
			loadOnce, loaded = sync.Once{}, nil
			Load()
			for i := 0; i < b.N; i++ {
				Scan("a.go", text)
			}
		})
	}
}
