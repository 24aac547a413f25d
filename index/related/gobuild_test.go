package related

import (
	"fmt"
	"strings"
	"testing"
)

// lightFiles define On and supported once per platform: by file name,
// by a //go:build line and by a legacy // +build line.
var lightFiles = map[string]string{
	"go.mod":                 "module example.com/l\n\ngo 1.22\n",
	"light/light.go":         "package light\n\ntype Light struct{}\n\nfunc Use(l *Light) bool { return l.On() && supported() }\n",
	"light/light_windows.go": "package light\n\nfunc (l *Light) On() bool { return false }\n\nfunc supported() bool { return false }\n\nfunc winOnly(l *Light) bool { return l.On() }\n",
	"light/unix.go":          "//go:build unix\n\npackage light\n\nfunc (l *Light) On() bool { return true }\n\nfunc supported() bool { return true }\n",
	"light/other.go":         "// Other platforms.\n\n// +build !unix,!windows\n\npackage light\n\nfunc (l *Light) On() bool { return false }\n\nfunc supported() bool { return false }\n",
	"main.go":                "package main\n\nimport \"example.com/l/light\"\n\nfunc main() { l := &light.Light{}; l.On() }\n",
}

// withBuild renders refs with their build constraints.
func withBuild(refs []Ref) []string {
	var out []string
	for _, r := range refs {
		out = append(out, fmt.Sprintf("%s:%d %s [%s]", r.Path, r.Line, r.Symbol, r.Build))
	}
	return out
}

func TestGoBuildConstraintVariants(t *testing.T) {
	db := fixtureOf(t, lightFiles)
	// Every variant, each with its constraint.
	check(t, "Use callees", withBuild(expand(t, db, "light/light.go::@Use").Callees), []string{
		"light/light_windows.go:3 Light.On [windows]",
		"light/other.go:7 Light.On [!unix && !windows]",
		"light/unix.go:5 Light.On [unix]",
		"light/light_windows.go:5 supported [windows]",
		"light/other.go:9 supported [!unix && !windows]",
		"light/unix.go:7 supported [unix]",
	})
	// A file built for Windows alone reaches the Windows variant alone,
	// and is no caller of the others.
	check(t, "winOnly callees", withBuild(expand(t, db, "light/light_windows.go::@winOnly").Callees), []string{
		"light/light_windows.go:3 Light.On [windows]"})
	check(t, "unix On callers", withBuild(expand(t, db, "light/unix.go::@Light.On").Callers), []string{
		"light/light.go:5 Use []", "main.go:5 main []"})
	check(t, "windows On callers", withBuild(expand(t, db, "light/light_windows.go::@Light.On").Callers), []string{
		"light/light_windows.go:7 winOnly [windows]", "light/light.go:5 Use []", "main.go:5 main []"})
	check(t, "windows supported callers", withBuild(expand(t, db, "light/light_windows.go::@supported").Callers), []string{
		"light/light.go:5 Use []"})
}

func TestGoBuildConstraints(t *testing.T) {
	for _, c := range []struct {
		a, b string // file names, each with a //go:build line after "|"
		want bool
	}{
		{"x_windows.go", "x_linux.go", false},
		{"x_windows.go", "x_windows_amd64.go", true},
		{"x_linux.go|unix", "y.go|!unix", false},
		{"x_android.go", "y.go|linux", true}, // android implies linux
		{"x_darwin_arm64.go", "y_amd64.go", false},
		{"x.go|cgo", "y.go|!cgo", false}, // never in one build
		{"x.go|cgo", "y_linux.go", true}, // cgo is no platform: either way
		{"linux.go", "windows.go", true}, // no prefix before the suffix: no constraint
		{"x_linux_test.go", "x_windows.go", false},
	} {
		build := func(spec string) *goBuild {
			name, line, ok := strings.Cut(spec, "|")
			text := "package x\n"
			if ok {
				text = "//go:build " + line + "\n\n" + text
			}
			return goBuildOf(name, []byte(text))
		}
		if got := buildsTogether(build(c.a), build(c.b)); got != c.want {
			t.Errorf("%s with %s: %v, want %v", c.a, c.b, got, c.want)
		}
	}
	for text, want := range map[string]string{
		"//go:build windows\n\npackage x\n":          "windows",
		"//go:build !arm64\n\npackage x\n":           "windows && !arm64",
		"// +build windows\n\npackage x // x\n":      "windows",
		"package x\n\n//go:build linux\nvar x = 1\n": "windows", // not in the header
	} {
		if got := goBuildOf("x_windows.go", []byte(text)).label; got != want {
			t.Errorf("label of x_windows.go with %q: %q, want %q", text, got, want)
		}
	}
}
