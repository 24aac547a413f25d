package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dossierhq/dossier/index/embed/embedtest"
)

func TestAnswers(t *testing.T) {
	for _, tc := range []struct {
		args string
		want bool
	}{
		{"stats", true},
		{"stats --json", true},
		{"--root /x stats", true},
		{"--root=/x search q", true},
		{"search --mode symbol -k 3 Parse", true},
		{"search -- --help", true},
		{"", false},
		{"index", false},
		{"mcp", false},
		{"related a.go", false},
		{"help search", false},
		{"search --help", false},
		{"stats -h", false},
		{"--json stats", false}, // a flag of dossier's own before the command
		{"--workers 2", false},  // dossier without a command
		{"-- search q", false},  // "search" is an argument there
		{"searchx q", false},    // another command, or none: dossier-full says
		{"__complete search", false},
	} {
		if got := answers(strings.Fields(tc.args)); got != tc.want {
			t.Errorf("answers(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// binaries builds dossier and dossier-full into one directory, once for
// all the tests, as `make build` does (dossier without cgo), and returns
// it.
func binaries(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "dossier-front-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		for _, b := range []struct{ out, pkg, cgo string }{{"dossier", ".", "0"}, {"dossier-full", "../dossier-full", "1"}} {
			cmd := exec.Command("go", "build", "-o", filepath.Join(dir, b.out), b.pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED="+b.cgo)
			if out, err := cmd.CombinedOutput(); err != nil {
				built.err = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

var built struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// frontAlone copies dossier, without dossier-full, into a directory of
// its own and returns its path.
func frontAlone(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(binaries(t), "dossier"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "dossier")
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

type result struct {
	stdout, stderr string
	code           int
}

func runBin(t *testing.T, bin, stdin string, env []string, args ...string) result {
	t.Helper()
	return runBinIn(t, "", bin, stdin, env, args...)
}

// runBinIn is runBin in the directory dir ("": this one).
func runBinIn(t *testing.T, dir, bin, stdin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute) // a hand-off loop would never end
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %v: still running after 2 minutes\n%s", bin, args, errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", bin, args, err)
	}
	return result{out.String(), errb.String(), code}
}

// latency masks what differs between two runs of one search: its time.
func latency(s string) string {
	s = latencyField.ReplaceAllString(s, `"latency_ms":0`)
	return millis.ReplaceAllString(s, "0 ms")
}

var (
	latencyField = regexp.MustCompile(`"latency_ms":[0-9.e+-]+`)
	millis       = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)? ms\b`)
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		abs := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFrontMatchesFull: every command line the one-shot front answers
// itself gets what dossier-full gives it, byte for byte, exit code and
// standard error included; every other one reaches dossier-full, through
// the front, with its arguments, standard input and exit code.
func TestFrontMatchesFull(t *testing.T) {
	bin := binaries(t)
	front, full := filepath.Join(bin, "dossier"), filepath.Join(bin, "dossier-full")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"billing/invoice.go": "package billing\n\n// SendInvoiceEmail mails the invoice to the customer.\nfunc SendInvoiceEmail(to string) error { return nil }\n",
		"billing/refund.go":  "package billing\n\n// IssueRefund returns money to the card.\nfunc IssueRefund(amount int) error { return nil }\n\nconst stripeKey = \"sk_live_51H8abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH\"\n",
		"docs/guide.md":      "# Guide\n\n## Refunds\n\nRefunds go back to the card within a week.\n",
		"web/cart.js":        "export function addToCart(cart, item) {\n  cart.items.push(item)\n  return cart\n}\n",
		// An untrusted workspace's endpoint: every command notices it once.
		".dossier.toml": "[llm]\nbase_url = \"http://llm.invalid/v1\"\n",
	})
	empty := t.TempDir()

	// Before any index, then indexed through the front.
	same := func(t *testing.T, stdin string, args ...string) result {
		t.Helper()
		f, g := runBin(t, front, stdin, nil, args...), runBin(t, full, stdin, nil, args...)
		f.stdout, g.stdout = latency(f.stdout), latency(g.stdout)
		if f != g {
			t.Errorf("dossier %q:\nfront: exit %d\n%s%s\nfull: exit %d\n%s%s", args, f.code, f.stdout, f.stderr, g.code, g.stdout, g.stderr)
		}
		return f
	}
	if r := same(t, "", "stats", "--root", empty); r.code == 0 {
		t.Errorf("stats of no index succeeded:\n%s", r.stdout)
	}
	same(t, "", "search", "--root", empty, "invoice")
	same(t, "", "search", "--root", filepath.Join(empty, "gone"), "invoice")
	if r := runBin(t, front, "", nil, "index", "--root", root); r.code != 0 || !strings.Contains(r.stdout, "files") {
		t.Fatalf("index through the front: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	notice := runBin(t, full, "", nil, "stats", "--root", root).stderr
	if strings.Count(notice, "ignoring [llm] base_url") != 1 {
		t.Fatalf("stats should notice the untrusted endpoint once:\n%s", notice)
	}
	for _, args := range [][]string{
		{"stats", "--root", root},
		{"stats", "--root", root, "--json"},
		{"stats", "--root", root, "--secrets"},
		{"--root", root, "stats", "--secrets", "--json"},
		{"stats", "--root", root, "extra"},
		{"stats", "--root", root, "--bogus"},
		{"search", "--root", root, "refund to the card"},
		{"search", "--root", root, "--json", "refund to the card"},
		{"search", "--root", root, "--mode", "text", "invoice email"},
		{"search", "--root", root, "--mode", "symbol", "IssueRef"},
		{"search", "--root", root, "--mode", "vector", "-k", "2", "--json", "add an item to the cart"},
		{"search", "--root", root, "--mode", "regex", "stripe"},
		{"search", "--root", root, "--type", "function", "--path-prefix", "billing/", "card"},
		{"search", "--root", root, "--type", "functoin", "card"},
		{"search", "--root", root, "--mode", "fuzzy", "card"},
		{"search", "--root", root, "-k", "0", "card"},
		{"search", "--root", root, "two", "words"},
		{"search", "--root", root, "zzzqqq"},
		{"search", "--root", root, "--route", "/nowhere", "card"},
		// The front parses flags as cobra does (or hands the line on).
		{"--root=" + root, "search", "-k2", "card"},
		{"search", "card", "--root", root, "--mode", "text", "--k=1"},
		{"search", "--root", root, "--json=false", "--type", "function,method", "card"},
		{"search", "--root", root, "--", "-card"},
		{"search", "--root", root, "-k", "many", "card"},
		{"search", "--root", root, "card", "--mode"},
		{"stats", "--json=true", "--root=" + root},
		{"stats", "--root", root, "--secrets=maybe"},
		{"", "stats", "--root", root}, // an empty command: dossier-full's error
		{"--root", root, "", "search", "card"},
		{"search", "--root", root, ""}, // an empty query, answered
	} {
		same(t, "", args...)
	}

	// Handed on: help, other commands, a stream of queries.
	for _, tc := range []struct {
		stdin string
		args  []string
	}{
		{"", []string{"--help"}},
		{"", []string{"search", "--help"}},
		{"", []string{"related", "--root", root, "billing/refund.go"}},
		{"", []string{"nosuchcommand"}},
		{"refund\ninvoice\n", []string{"search", "--root", root, "--json", "--mode", "text"}},
		{"", []string{"search", "--root", root, "-"}},
	} {
		if r := same(t, tc.stdin, tc.args...); r.stdout == "" && r.stderr == "" {
			t.Errorf("dossier %q printed nothing", tc.args)
		}
	}

	// Without dossier-full, the front says where it looked and how to get it.
	alone := frontAlone(t)
	r := runBin(t, alone, "", []string{"PATH=" + t.TempDir(), "DOSSIER_FULL="}, "index", "--root", root)
	if r.code != 1 || !strings.Contains(r.stderr, "dossier-full") || !strings.Contains(r.stderr, "make build") {
		t.Errorf("index without dossier-full: exit %d\n%s", r.code, r.stderr)
	}
	// ... with what it names escaped.
	r = runBin(t, alone, "", []string{"DOSSIER_FULL=/no\x1b[31mwhere"}, "index", "--root", root)
	if r.code != 1 || strings.Contains(r.stderr, "\x1b") || !strings.Contains(r.stderr, `/no\x1b[31mwhere`) {
		t.Errorf("index with DOSSIER_FULL holding an escape: exit %d\n%q", r.code, r.stderr)
	}
	// DOSSIER_FULL naming the front itself is refused, not exec'd in a loop.
	r = runBin(t, alone, "", []string{"DOSSIER_FULL=" + alone}, "index", "--root", root)
	if r.code != 1 || !strings.Contains(r.stderr, "this very binary") || !strings.Contains(r.stderr, "DOSSIER_FULL") {
		t.Errorf("index with DOSSIER_FULL naming the front: exit %d\n%s", r.code, r.stderr)
	}
	// ... nor a copy of it.
	copied := filepath.Join(t.TempDir(), "dossier-copy")
	if b, err := os.ReadFile(alone); err != nil {
		t.Fatal(err)
	} else if err := os.WriteFile(copied, b, 0o755); err != nil {
		t.Fatal(err)
	}
	r = runBin(t, alone, "", []string{"DOSSIER_FULL=" + copied}, "index", "--root", root)
	if r.code != 1 || !strings.Contains(r.stderr, "names a copy of dossier") {
		t.Errorf("index with DOSSIER_FULL naming a copy of the front: exit %d\n%s", r.code, r.stderr)
	}
	// ... and still answers what it answers alone.
	if r := runBin(t, alone, "", []string{"PATH=" + t.TempDir()}, "stats", "--root", root); r.code != 0 {
		t.Errorf("stats without dossier-full: exit %d\n%s", r.code, r.stderr)
	}
}

// TestFrontHandsOnRemoteQueries: the front links no client of remote
// embedding endpoints, so a search that needs one (an index whose
// vectors come from one) is answered by dossier-full, as if asked there.
func TestFrontHandsOnRemoteQueries(t *testing.T) {
	bin := binaries(t)
	front, full := filepath.Join(bin, "dossier"), filepath.Join(bin, "dossier-full")
	srv := embedtest.NewServer(t)
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	t.Setenv("TEST_EMBED_KEY", embedtest.Key)
	// The endpoint is the user's own setting; the workspace's untrusted
	// one is noticed, once, by whichever binary answers.
	writeFiles(t, home, map[string]string{
		"dossier/config.toml": fmt.Sprintf("[embed]\nprovider = \"openai\"\nbase_url = %q\nmodel = %q\napi_key_env = \"TEST_EMBED_KEY\"\n", srv.BaseURL(), embedtest.Model),
	})
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"billing/invoice.go": "package billing\n\n// SendInvoiceEmail mails the invoice to the customer.\nfunc SendInvoiceEmail(to string) error { return nil }\n",
		"billing/refund.go":  "package billing\n\n// IssueRefund returns money to the card.\nfunc IssueRefund(amount int) error { return nil }\n",
		".dossier.toml":      "[llm]\nbase_url = \"http://llm.invalid/v1\"\n",
	})
	if r := runBin(t, front, "", nil, "index", "--root", root); r.code != 0 {
		t.Fatalf("index: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	_, before := srv.Counts()
	for _, mode := range []string{"hybrid", "vector"} {
		f := runBin(t, front, "", nil, "search", "--root", root, "--mode", mode, "--json", "mail the invoice to the customer")
		g := runBin(t, full, "", nil, "search", "--root", root, "--mode", mode, "--json", "mail the invoice to the customer")
		f.stdout, g.stdout = latency(f.stdout), latency(g.stdout)
		if f != g || f.code != 0 || !strings.Contains(f.stdout, "SendInvoiceEmail") || strings.Count(f.stderr, "ignoring [llm] base_url") != 1 {
			t.Errorf("--mode %s:\nfront: exit %d\n%s%s\nfull: exit %d\n%s%s", mode, f.code, f.stdout, f.stderr, g.code, g.stdout, g.stderr)
		}
	}
	if _, after := srv.Counts(); after < before+4 {
		t.Errorf("the endpoint embedded %d queries, want 4 (two by the front's dossier-full, two by dossier-full)", after-before)
	}
	// Text and symbol searches need no endpoint: the front answers them.
	if r := runBin(t, front, "", []string{"DOSSIER_FULL=/nonexistent"}, "search", "--root", root, "--mode", "symbol", "IssueRefund"); r.code != 0 || !strings.Contains(r.stdout, "IssueRefund") {
		t.Errorf("symbol search on a remote index: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestVersion: dossier and dossier-full answer --version with the build
// version the Go toolchain stamped into each binary, as `go version -m`
// reads it (module version, VCS revision, dirty flag); dossier answers
// without dossier-full beside it.
func TestVersion(t *testing.T) {
	dir := binaries(t)
	for _, bin := range []string{frontAlone(t), filepath.Join(dir, "dossier-full")} {
		out, err := exec.Command("go", "version", "-m", bin).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := "dossier " + stampedVersion(string(out))
		r := runBin(t, bin, "", nil, "--version")
		if r.code != 0 || !strings.HasPrefix(r.stdout, want) || r.stderr != "" {
			t.Errorf("%s --version: exit %d, stdout %q, stderr %q; want it to start %q", filepath.Base(bin), r.code, r.stdout, r.stderr, want)
		}
	}
}

// stampedVersion is the start of the version line for the build info
// `go version -m` prints: the module version, then the revision and the
// dirty flag when the build was stamped.
func stampedVersion(info string) string {
	var mod, rev string
	dirty := false
	for line := range strings.Lines(info) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod":
			mod = f[2]
		case len(f) >= 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			rev = strings.TrimPrefix(f[1], "vcs.revision=")
		case len(f) >= 2 && f[0] == "build" && f[1] == "vcs.modified=true":
			dirty = true
		}
	}
	if rev != "" {
		mod += " (rev " + rev[:min(12, len(rev))]
		if dirty {
			mod += ", dirty"
		}
	}
	return mod
}
