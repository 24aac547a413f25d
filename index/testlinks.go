package index

import (
	"path"
	"strings"

	"github.com/dossierhq/dossier/index/lang"
)

// testLinks pairs test files with the files they test, both ways:
// foo.go<->foo_test.go, x.py<->test_x.py, src/a.ts<->tests/a.test.ts and
// __tests__/a.test.ts. Among several same-named subjects, the one sharing
// the most of the test's directory path wins.
func testLinks(paths []string) map[string]map[string]string {
	byStem := map[string][]string{}
	for _, p := range paths {
		if lang.IsTestPath(p) && testStem(p) != "" {
			continue
		}
		byStem[stemKey(p)] = append(byStem[stemKey(p)], p)
	}
	links := map[string]map[string]string{}
	add := func(a, b, role string) {
		if links[a] == nil {
			links[a] = map[string]string{}
		}
		links[a][b] = role
	}
	for _, t := range paths {
		stem := testStem(t)
		if stem == "" {
			continue
		}
		cands := byStem[family(t)+":"+stem]
		best, bestScore := []string(nil), -1
		for _, s := range cands {
			if s == t {
				continue
			}
			sc := dirScore(path.Dir(t), path.Dir(s))
			switch {
			case sc > bestScore:
				best, bestScore = []string{s}, sc
			case sc == bestScore:
				best = append(best, s)
			}
		}
		if len(best) > 3 {
			continue // too ambiguous to be useful
		}
		for _, s := range best {
			add(s, t, "test")
			add(t, s, "subject")
		}
	}
	return links
}

// testStem is the subject's file stem named by a test path, or "".
func testStem(p string) string {
	base := path.Base(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for _, suf := range []string{"_test", ".test", ".spec", "_spec", "Test", "Tests", "-test", "-spec"} {
		if strings.HasSuffix(stem, suf) && len(stem) > len(suf) {
			return stem[:len(stem)-len(suf)]
		}
	}
	if strings.HasPrefix(stem, "test_") && len(stem) > 5 {
		return stem[5:]
	}
	return ""
}

func stemKey(p string) string {
	base := path.Base(p)
	return family(p) + ":" + strings.TrimSuffix(base, path.Ext(base))
}

// family groups extensions a test and its subject may differ in (a.ts is
// tested by a.test.tsx).
func family(p string) string {
	switch ext := strings.ToLower(path.Ext(p)); ext {
	case ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts":
		return "js"
	case ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp":
		return "c"
	default:
		return ext
	}
}

// dirScore counts shared directory components, ignoring test folders.
func dirScore(testDir, subjDir string) int {
	if testDir == subjDir {
		return 1000
	}
	clean := func(d string) []string {
		var out []string
		for _, p := range strings.Split(d, "/") {
			switch p {
			case "tests", "test", "__tests__", "spec", "src", "lib", ".":
				continue
			}
			out = append(out, p)
		}
		return out
	}
	a, b := clean(testDir), clean(subjDir)
	// Shared suffix: tests/foo/a.test.ts <-> src/foo/a.ts.
	n := 0
	for i, j := len(a)-1, len(b)-1; i >= 0 && j >= 0 && a[i] == b[j]; i, j = i-1, j-1 {
		n++
	}
	if len(a) == n && len(b) == n {
		return 500 + n
	}
	// Nested __tests__ next to the subject: src/a/__tests__/x.test.ts <-> src/a/x.ts.
	if strings.HasPrefix(testDir, subjDir+"/") {
		return 400
	}
	return n
}
