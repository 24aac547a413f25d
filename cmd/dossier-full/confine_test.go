package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const secret = "SECRET-SHADOW-CONTENT"

// within runs f and fails the test if it has not returned in time: a read
// of a FIFO would block forever.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s did not finish: blocked on a FIFO or device?", what)
	}
}

// TestFlowPartsStayInTheWorkspace lays links and symlinked parts that lead
// out of the workspace, to a FIFO, a device, a directory and a huge file,
// and checks that status, plan and assemble finish, name each state and
// never carry the outside content.
func TestFlowPartsStayInTheWorkspace(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := flowWorkspace(t)
	r := "--root=" + root
	dir := flowDir(t, root)
	ev := filepath.Join(dir, "ctx", "evidence")
	outside := t.TempDir()
	shadow := filepath.Join(outside, "shadow")
	extra := t.TempDir()
	os.WriteFile(shadow, []byte(secret+"\n"), 0o600)
	os.WriteFile(filepath.Join(extra, "notes.md"), []byte("extra root notes\n"), 0o600)
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ev, "340_fifo.evidence.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	big, _ := os.Create(filepath.Join(root, "big.log"))
	big.Truncate(9 << 20) // sparse: over the 8 MB cap without writing it
	big.Close()
	links := map[string]string{
		"300_shadow.evidence.link": shadow,
		"310_shadow.evidence.md":   shadow, // a symlinked part
		"320_zero.evidence.link":   "/dev/zero",
		"330_pipe.evidence.link":   filepath.Join(root, "pipe"),
		"350_dir.evidence.link":    filepath.Join(root, "render"),
		"360_render.evidence.link": "../../../../../render/render.go",
		"370_notes.evidence.link":  filepath.Join(extra, "notes.md"),
		"380_big.evidence.link":    filepath.Join(root, "big.log"),
		"390_dotdot.evidence.link": "../../../../../../" + filepath.Base(outside) + "/shadow",
		"395_relpart.evidence.md":  filepath.Join(root, "render", "render.go"),
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(ev, name)); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{
		"300_shadow": "outside", "310_shadow": "outside", "320_zero": "outside",
		"330_pipe": "not a regular file", "340_fifo": "not a regular file", "350_dir": "not a regular file",
		"360_render": "active", "370_notes": "outside", "380_big": "too large", "395_relpart": "active",
	}
	check := func(extraListed bool) {
		t.Helper()
		var st struct {
			Parts []struct {
				ID     string   `json:"id"`
				States []string `json:"states"`
				Source string   `json:"source"`
			} `json:"parts"`
		}
		var out string
		within(t, "status", func() { out = must(t, "evidence", "status", "--json", r) })
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("status --json: %v\n%s", err, out)
		}
		for _, p := range st.Parts {
			w, ok := want[p.ID]
			if !ok {
				continue
			}
			if extraListed && (p.ID == "370_notes" || p.ID == "320_zero") {
				w = map[string]string{"370_notes": "active", "320_zero": "not a regular file"}[p.ID]
			}
			if p.States[0] != w {
				t.Errorf("%s: states %v (%s), want %s", p.ID, p.States, p.Source, w)
			}
			if w == "outside" && !strings.Contains(p.Source, "extra_roots") {
				t.Errorf("%s: the message gives no fix: %s", p.ID, p.Source)
			}
		}
		var text, md, plan string
		within(t, "status", func() { text = must(t, "evidence", "status", r) })
		within(t, "assemble", func() { md = must(t, "assemble", r) })
		within(t, "plan", func() { plan = must(t, "evidence", "plan", r) })
		for _, s := range []string{"link ctx/evidence/300_shadow.evidence.link points outside the workspace (" + shadow + "): copy the file into the workspace or add its directory to [evidence] extra_roots", "not a regular file", "too large"} {
			if !strings.Contains(text, s) {
				t.Errorf("status lacks %q:\n%s", s, text)
			}
		}
		if !strings.Contains(plan, `"status": "outside"`) || !strings.Contains(plan, `"status": "not a regular file"`) {
			t.Errorf("ctxplan.json does not show the refused parts:\n%s", plan)
		}
		if !strings.Contains(md, "## Evidence: render/render.go") || strings.Contains(md, "/dev/zero") {
			t.Errorf("prompt:\n%s", md)
		}
		if strings.Contains(md, "extra root notes") != extraListed {
			t.Errorf("extra root listed=%v, prompt:\n%s", extraListed, md)
		}
		for _, s := range []string{out, text, md, plan} {
			if strings.Contains(s, secret) {
				t.Fatalf("outside content leaked:\n%s", s)
			}
		}
		filepath.Walk(filepath.Join(dir, "build"), func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				if raw, _ := os.ReadFile(p); strings.Contains(string(raw), secret) {
					t.Errorf("%s holds the outside content", p)
				}
			}
			return nil
		})
	}
	check(false)
	// Extra roots come from the user's config (a workspace's waits for
	// `dossier trust`).
	userCfg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "dossier", "config.toml")
	os.MkdirAll(filepath.Dir(userCfg), 0o700)
	cfg := "[evidence]\nextra_roots = [\"" + extra + "\", \"/dev\"]\n"
	if err := os.WriteFile(userCfg, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	check(true)

	// A bad extra root is a config error that says what to give.
	os.WriteFile(userCfg, []byte("[evidence]\nextra_roots = [\"notes\"]\n"), 0o600)
	if _, errOut, code := runCLI(t, "evidence", "status", r); code == 0 || !strings.Contains(errOut, `evidence.extra_roots "notes" is not an absolute path`) {
		t.Errorf("relative extra root: exit %d %s", code, errOut)
	}
}

// TestSourcesNeverBlock checks that add, status and refresh refuse a
// source that is, or became, a FIFO instead of hanging on it.
func TestSourcesNeverBlock(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.go"), 0o600); err != nil {
		t.Fatal(err)
	}
	within(t, "add", func() {
		_, errOut, code := runCLI(t, "evidence", "add", "pipe.go", r)
		if code == 0 || !strings.Contains(errOut, "pipe.go is a FIFO, not a regular file") {
			t.Errorf("add of a FIFO: exit %d %s", code, errOut)
		}
		_, errOut, code = runCLI(t, "evidence", "add", "--role", "user", "pipe.go", r)
		if code == 0 || !strings.Contains(errOut, "not a regular file") {
			t.Errorf("user part from a FIFO: exit %d %s", code, errOut)
		}
	})
	must(t, "evidence", "add", "render/render.go::1,3", r)
	src := filepath.Join(root, "render", "render.go")
	os.Remove(src)
	if err := syscall.Mkfifo(src, 0o600); err != nil {
		t.Fatal(err)
	}
	within(t, "status and refresh", func() {
		out := must(t, "evidence", "status", r)
		if !strings.Contains(out, "source not a regular file") {
			t.Errorf("status of a part whose source became a FIFO:\n%s", out)
		}
		_, errOut, code := runCLI(t, "evidence", "refresh", "100_render_go_1_3", r)
		if code == 0 || !strings.Contains(errOut, "not a regular file") {
			t.Errorf("refresh from a FIFO: exit %d %s", code, errOut)
		}
		must(t, "assemble", r)
	})
}
