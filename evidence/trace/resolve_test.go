package trace

import (
	"reflect"
	"testing"
)

// workspace is the file set the resolve tests run against.
var workspace = []string{
	"calc/calc.go",
	"calc/calc_test.go",
	"internal/parse/parse_test.go",
	"cmd/tool/main_test.go",
	"store/db.go",
	"backend/api/api_test.go",
	"src/app.js",
	"src/client/index.ts",
	"node_modules/left-pad/index.js",
	"one/util.go", "two/util.go",
	"a/h.c", "b/h.c", "c/h.c", "d/h.c",
}

func existsIn(files []string) func(string) bool {
	set := make(map[string]bool, len(files))
	for _, f := range files {
		set[f] = true
	}
	return func(rel string) bool { return set[rel] }
}

const root = "/home/dev/proj"

func TestResolve(t *testing.T) {
	exists := existsIn(workspace)
	suffix := NewSuffixIndex(workspace)
	for _, tc := range []struct {
		name   string
		ref    Ref
		suffix bool
		want   []string
		drop   Dropped
	}{
		{name: "absolute in root", ref: Ref{Path: root + "/calc/calc.go"}, want: []string{"calc/calc.go"}},
		{name: "absolute in root, missing", ref: Ref{Path: root + "/calc/gone.go"}, drop: Dropped{Missing: 1}},
		{name: "absolute outside", ref: Ref{Path: "/home/dev/other/x.go"}, drop: Dropped{Outside: 1}},
		{name: "root prefix is not a parent: another checkout, mapped", ref: Ref{Path: root + "2/calc/calc.go"}, want: []string{"calc/calc.go"}},
		{name: "container path mapped by suffix", ref: Ref{Path: "/var/www/app/calc/calc.go"}, suffix: true, want: []string{"calc/calc.go"}},
		{name: "CI checkout mapped by suffix", ref: Ref{Path: "/home/runner/work/proj/proj/store/db.go"}, suffix: true, want: []string{"store/db.go"}},
		{name: "windows checkout mapped", ref: Ref{Path: `C:\src\proj\calc\calc_test.go`}, want: []string{"calc/calc_test.go"}},
		{name: "container vendor", ref: Ref{Path: "/var/www/app/vendor/laravel/framework/src/Routing/Controller.php"}, suffix: true, drop: Dropped{Vendor: 1}},
		{name: "container path naming no workspace file", ref: Ref{Path: "/var/www/app/calc/gone.go"}, suffix: true, drop: Dropped{Outside: 1}},
		{name: "mapped only to a whole indexed path, not a suffix of one", ref: Ref{Path: "/srv/x/api/api_test.go"}, suffix: true, drop: Dropped{Outside: 1}},
		{name: "windows outside", ref: Ref{Path: `C:\work\app\build.ps1`}, drop: Dropped{Outside: 1}},
		{name: "GOROOT", ref: Ref{Path: "/usr/local/go/src/testing/testing.go"}, drop: Dropped{Vendor: 1}},
		{name: "Go SDK", ref: Ref{Path: "/home/dev/sdk/go1.22.1/src/runtime/panic.go"}, drop: Dropped{Vendor: 1}},
		{name: "module cache", ref: Ref{Path: "/home/dev/go/pkg/mod/golang.org/x/sync@v0.7.0/errgroup/errgroup.go"}, drop: Dropped{Vendor: 1}},
		{name: "python stdlib", ref: Ref{Path: "/usr/lib/python3.11/json/__init__.py"}, drop: Dropped{Vendor: 1}},
		{name: "venv in root", ref: Ref{Path: root + "/.venv/lib/python3.11/site-packages/req/api.py"}, drop: Dropped{Vendor: 1}},
		{name: "node_modules in root", ref: Ref{Path: root + "/node_modules/left-pad/index.js"}, drop: Dropped{Vendor: 1}},
		{name: "node_modules relative", ref: Ref{Path: "node_modules/left-pad/index.js"}, drop: Dropped{Vendor: 1}},
		{name: "rust toolchain", ref: Ref{Path: "/rustc/9b00956e/library/std/src/panicking.rs"}, drop: Dropped{Vendor: 1}},
		{name: "file URL", ref: Ref{Path: "file://" + root + "/src/app.js"}, want: []string{"src/app.js"}},
		{name: "dot relative", ref: Ref{Path: "./store/db.go"}, want: []string{"store/db.go"}},
		{name: "webpack relative", ref: Ref{Path: "./src/client/index.ts"}, want: []string{"src/client/index.ts"}},
		{name: "git b/ prefix", ref: Ref{Path: "b/calc/calc.go"}, want: []string{"calc/calc.go"}},
		{name: "climbing", ref: Ref{Path: "../calc/calc.go"}, want: []string{"calc/calc.go"}},
		{name: "climbing, nothing there", ref: Ref{Path: "../elsewhere/x.go"}, suffix: true, drop: Dropped{Outside: 1}},
		{name: "relative missing", ref: Ref{Path: "calc/nope.go"}, suffix: true, drop: Dropped{Missing: 1}},
		{name: "go test name via package", ref: Ref{Path: "calc_test.go", Pkg: "github.com/acme/proj/calc"},
			want: []string{"calc/calc_test.go"}},
		{name: "go test name via deep package", ref: Ref{Path: "parse_test.go", Pkg: "github.com/acme/proj/internal/parse"},
			want: []string{"internal/parse/parse_test.go"}},
		{name: "go build name via header package", ref: Ref{Path: "./main_test.go", Pkg: "github.com/acme/proj/cmd/tool"},
			want: []string{"cmd/tool/main_test.go"}},
		{name: "go test name, package elsewhere", ref: Ref{Path: "calc_test.go", Pkg: "github.com/acme/proj/internal/parse"},
			drop: Dropped{Missing: 1}},
		{name: "go test name, nested module, via suffix", ref: Ref{Path: "api_test.go", Pkg: "example.org/svc/api"}, suffix: true,
			want: []string{"backend/api/api_test.go"}},
		{name: "go test name without package needs suffix", ref: Ref{Path: "api_test.go"}, drop: Dropped{Missing: 1}},
		{name: "suffix, unique", ref: Ref{Path: "api_test.go"}, suffix: true, want: []string{"backend/api/api_test.go"}},
		{name: "suffix, two candidates kept", ref: Ref{Path: "util.go"}, suffix: true, want: []string{"one/util.go", "two/util.go"}},
		{name: "suffix, too many", ref: Ref{Path: "h.c"}, suffix: true, drop: Dropped{Ambiguous: 1}},
		{name: "suffix skips vendor", ref: Ref{Path: "index.js"}, suffix: true, drop: Dropped{Missing: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sfx func(string) []string
			if tc.suffix {
				sfx = suffix
			}
			got, drop := ResolveWith([]Ref{tc.ref}, root, exists, sfx)
			var rels []string
			for _, r := range got {
				rels = append(rels, r.Rel)
				if r.Ref != tc.ref {
					t.Errorf("ref changed: %+v", r.Ref)
				}
			}
			if !reflect.DeepEqual(rels, tc.want) || drop != tc.drop {
				t.Errorf("got %q %+v, want %q %+v", rels, drop, tc.want, tc.drop)
			}
		})
	}
}

// TestResolveDedup checks that refs naming one file in different ways
// resolve once, keeping the first, and that counts add up.
func TestResolveDedup(t *testing.T) {
	refs := []Ref{
		{Path: "calc_test.go", Line: 71, Pkg: "github.com/acme/proj/calc", Format: FormatGoTest},
		{Path: root + "/calc/calc_test.go", Line: 71, Format: FormatGeneric},
		{Path: "./store/db.go", Line: 10},
		{Path: "store/db.go", Line: 10},
		{Path: "store/db.go", Line: 11},
		{Path: "/usr/local/go/src/runtime/panic.go", Line: 770},
		{Path: "/tmp/x.go", Line: 1},
	}
	got, drop := Resolve(refs, root+"/", existsIn(workspace))
	want := []Resolved{
		{Ref: refs[0], Rel: "calc/calc_test.go"},
		{Ref: refs[2], Rel: "store/db.go"},
		{Ref: refs[4], Rel: "store/db.go"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if drop != (Dropped{Vendor: 1, Outside: 1}) {
		t.Errorf("dropped %+v", drop)
	}
}

// TestResolveSamples runs the Go samples end to end: every workspace ref
// they print lands on its file.
func TestResolveSamples(t *testing.T) {
	files := []string{"calc/calc.go", "calc/calc_test.go", "calc/server.go", "calc/format.go",
		"internal/parse/parse_test.go", "store/db.go", "store/cache.go", "cmd/tool/main_test.go"}
	var refs []Ref
	for _, name := range []string{"go_test.txt", "go_build.txt", "go_panic.txt"} {
		refs = append(refs, sampleWant[name]...)
	}
	got, drop := Resolve(refs, "/home/dev/proj", existsIn(files))
	var rels []string
	for _, r := range got {
		rels = append(rels, r.Rel)
	}
	want := []string{"calc/calc_test.go", "calc/calc_test.go", "calc/calc_test.go",
		"internal/parse/parse_test.go", "store/db.go", "store/db.go", "store/cache.go",
		"cmd/tool/main_test.go", "calc/format.go", "calc/calc.go", "calc/calc_test.go", "calc/server.go"}
	if !reflect.DeepEqual(rels, want) {
		t.Errorf("got  %q\nwant %q", rels, want)
	}
	// calc_test.go:42 of package internal/parse has no such file; and
	// six GOROOT frames.
	if drop != (Dropped{Missing: 1, Vendor: 6}) {
		t.Errorf("dropped %+v", drop)
	}
}

func TestNewSuffixIndex(t *testing.T) {
	idx := NewSuffixIndex([]string{"pkg/a.go", "x/pkg/a.go", "xpkg/a.go"})
	if got := idx("pkg/a.go"); !reflect.DeepEqual(got, []string{"pkg/a.go", "x/pkg/a.go"}) {
		t.Errorf("pkg/a.go: %q", got)
	}
	if got := idx("a.go"); len(got) != 3 {
		t.Errorf("a.go: %q", got)
	}
	if got := idx("kg/a.go"); got != nil {
		t.Errorf("kg/a.go: %q", got)
	}
}

// TestResolveMapsForeignPaths: a path from a container, a CI runner or
// another checkout is placed at its longest suffix that is a workspace
// file, and the result says where it came from.
func TestResolveMapsForeignPaths(t *testing.T) {
	files := []string{"app/Http/Controllers/UserController.php", "Http/Controllers/UserController.php", "routes/web.php"}
	got, drop := ResolveWith([]Ref{
		{Path: "/var/www/app/app/Http/Controllers/UserController.php", Line: 50},
		{Path: "/var/www/app/routes/web.php", Line: 21},
		{Path: "/home/dev/proj/routes/web.php", Line: 22},
	}, "/home/dev/proj", existsIn(files), NewSuffixIndex(files))
	want := []Resolved{
		{Ref: Ref{Path: "/var/www/app/app/Http/Controllers/UserController.php", Line: 50}, Rel: "app/Http/Controllers/UserController.php", MappedFrom: "/var/www/app/app/Http/Controllers/UserController.php"},
		{Ref: Ref{Path: "/var/www/app/routes/web.php", Line: 21}, Rel: "routes/web.php", MappedFrom: "/var/www/app/routes/web.php"},
		{Ref: Ref{Path: "/home/dev/proj/routes/web.php", Line: 22}, Rel: "routes/web.php"},
	}
	if !reflect.DeepEqual(got, want) || drop != (Dropped{}) {
		t.Errorf("got %+v %+v\nwant %+v", got, drop, want)
	}
}
