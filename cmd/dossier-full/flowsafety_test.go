package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/dossierhq/dossier/store/fsafe"
)

// TestRefreshKeepsHandNotes: any byte of a part that differs from what
// dossier wrote is a hand edit, so refresh never overwrites it silently.
func TestRefreshKeepsHandNotes(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	dir := flowDir(t, root)
	must(t, "evidence", "add", "render/render.go", "parser/parse.go::8,14", r)
	ev := filepath.Join(dir, "ctx", "evidence")
	before := filepath.Join(ev, "100_render_go.evidence.md")
	after := filepath.Join(ev, "110_parse_go_parse.evidence.md")
	note := func(path string, at func(string) string) string {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := at(string(raw))
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return text
	}
	// A note between the provenance comment and the fence, another after the fence.
	textBefore := note(before, func(s string) string {
		return strings.Replace(s, "-->\n\n", "-->\n\nNOTE: Render is called from main only.\n\n", 1)
	})
	textAfter := note(after, func(s string) string { return s + "\nNOTE: check the empty case.\n" })
	os.WriteFile(filepath.Join(root, "render", "render.go"), []byte("package render\n\n// Render draws.\nfunc Render(tree string) string { return tree }\n"), 0o644)
	os.WriteFile(filepath.Join(root, "parser", "parse.go"), []byte(strings.Repeat("// moved\n", 20)), 0o644)

	out := must(t, "evidence", "status", r)
	for _, id := range []string{"100_render_go", "110_parse_go_parse"} {
		if !strings.Contains(lineOf(out, id), "edited") {
			t.Errorf("%s with a hand note is not marked edited:\n%s", id, out)
		}
	}
	out = must(t, "evidence", "refresh", r)
	if !strings.Contains(out, "100_render_go") || !strings.Contains(out, "edited by hand") {
		t.Errorf("refresh does not name the edited parts it left alone:\n%s", out)
	}
	for path, want := range map[string]string{before: textBefore, after: textAfter} {
		if raw, _ := os.ReadFile(path); string(raw) != want {
			t.Errorf("refresh overwrote the hand-edited %s:\n%s", filepath.Base(path), raw)
		}
	}
	_, errOut, code := runCLI(t, "evidence", "refresh", "100", r)
	if code == 0 || !strings.Contains(errOut, "edited by hand") {
		t.Errorf("refresh of a named edited part without --force: exit %d %s", code, errOut)
	}
	// --force replaces it and keeps every edited copy.
	must(t, "evidence", "refresh", "100", "--force", r)
	note(before, func(s string) string { return s + "\nSECOND NOTE\n" })
	must(t, "evidence", "refresh", "100", "--force", r)
	copies, _ := filepath.Glob(filepath.Join(dir, "build", "removed", "100_render_go.evidence.md.edited*"))
	var all string
	for _, c := range copies {
		raw, _ := os.ReadFile(c)
		all += string(raw)
	}
	if len(copies) != 2 || !strings.Contains(all, "NOTE: Render is called") || !strings.Contains(all, "SECOND NOTE") {
		t.Errorf("edited copies in build/removed: %v\n%s", copies, all)
	}
	if raw, _ := os.ReadFile(before); strings.Contains(string(raw), "NOTE") || !strings.Contains(string(raw), "return tree") {
		t.Errorf("--force did not refresh the part:\n%s", raw)
	}
}

// lineOf is the first line of out that holds s.
func lineOf(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// TestTruncatedPartIsDamaged: a part file cut short is shown as damaged,
// left out of every prompt and left on disk as it is.
func TestTruncatedPartIsDamaged(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	dir := flowDir(t, root)
	must(t, "evidence", "add", "render/render.go", "parser/parse.go::8,14", "core/flow.sh::1,3", r)
	ev := filepath.Join(dir, "ctx", "evidence")
	cut := func(name string, at func(string) int) string {
		p := filepath.Join(ev, name)
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)[:at(string(raw))]
		os.WriteFile(p, []byte(text), 0o644)
		return text
	}
	inComment := cut("100_render_go.evidence.md", func(s string) int { return strings.Index(s, "cid=sha256:") + 20 })
	inCode := cut("110_parse_go_parse.evidence.md", func(s string) int { return strings.Index(s, "if src") })
	badProv := cut("120_flow_sh_1_3.evidence.md", func(s string) int { return len(s) })
	badProv = strings.Replace(badProv, "span=lines=1:3", "span=lines=1:", 1)
	os.WriteFile(filepath.Join(ev, "120_flow_sh_1_3.evidence.md"), []byte(badProv), 0o644)

	out := must(t, "evidence", "status", r)
	for _, c := range []struct{ id, why string }{
		{"100_render_go", "not closed"},
		{"110_parse_go_parse", "never closed"},
		{"120_flow_sh_1_3", "span"},
	} {
		if l := lineOf(out, c.id); !strings.Contains(l, "damaged") || !strings.Contains(l, c.why) {
			t.Errorf("%s is not reported damaged (%s):\n%s", c.id, c.why, out)
		}
	}
	md := must(t, "assemble", r)
	if strings.Contains(md, "cid=sha256:"+inComment[len(inComment)-9:]) || strings.Contains(md, "func Parse") || strings.Contains(md, "echo line 1") {
		t.Errorf("a damaged part was assembled:\n%s", md)
	}
	plan := must(t, "evidence", "plan", r)
	if strings.Count(plan, `"status": "damaged"`) != 3 {
		t.Errorf("ctxplan.json does not list the damaged parts:\n%s", plan)
	}
	must(t, "evidence", "refresh", r)
	if raw, _ := os.ReadFile(filepath.Join(ev, "100_render_go.evidence.md")); string(raw) != inComment {
		t.Errorf("refresh changed a damaged part:\n%s", raw)
	}
	// A damaged part whose provenance still reads is rewritten on request,
	// keeping the damaged copy.
	must(t, "evidence", "refresh", "110", "--force", r)
	if out := must(t, "evidence", "status", r); strings.Contains(lineOf(out, "110_parse_go"), "damaged") {
		t.Errorf("refresh --force did not repair 110:\n%s", out)
	}
	if raw, _ := os.ReadFile(filepath.Join(dir, "build", "removed", "110_parse_go_parse.evidence.md.edited")); string(raw) != inCode {
		t.Errorf("the damaged copy is not kept:\n%s", raw)
	}
	// One whose provenance is cut says what to do instead.
	_, errOut, code := runCLI(t, "evidence", "refresh", "100", "--force", r)
	if code == 0 || !strings.Contains(errOut, "evidence add") {
		t.Errorf("refresh of a part with a cut comment: exit %d %s", code, errOut)
	}
}

// TestInvalidUTF8NeverReachesAPrompt: bytes that are not UTF-8 (a Latin-1
// source, a part edited with another encoding) reach no output; the
// prompt carries U+FFFD, status says so, and the files stay as they are.
func TestInvalidUTF8NeverReachesAPrompt(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	dir := flowDir(t, root)
	os.WriteFile(filepath.Join(root, "latin1.txt"), []byte("caf\xe9 cr\xe8me\nna\xefve\n"), 0o644)
	must(t, "evidence", "add", "latin1.txt", "render/render.go", r)
	must(t, "evidence", "add", "latin1.txt::0c,4c", "--force", r) // cuts nothing: é is one byte in Latin-1
	ev := filepath.Join(dir, "ctx", "evidence")
	hand := filepath.Join(ev, "300_hand.evidence.md")
	os.WriteFile(hand, []byte("## Evidence: na\xefve \xff\xfe notes\n\nSee \xc3 here.\n"), 0o644)
	sys := filepath.Join(dir, "ctx", "001_bad.system.md")
	os.WriteFile(sys, []byte("Answer in \xff\xfe English.\n"), 0o644)
	files := tree(t, dir)

	out := must(t, "evidence", "status", r)
	for _, id := range []string{"100_latin1_txt", "300_hand", "001_bad"} {
		if !strings.Contains(lineOf(out, id), "not UTF-8") {
			t.Errorf("%s is not marked not UTF-8:\n%s", id, out)
		}
	}
	if strings.Contains(lineOf(out, "100_latin1_txt"), "edited") {
		t.Errorf("a fresh Latin-1 part is marked edited:\n%s", out)
	}
	for _, format := range []string{"mdctx", "aptix", "responses", "pack"} {
		md, errOut, code := runCLI(t, "assemble", "--format", format, r)
		if code != 0 || !utf8.ValidString(md) || !strings.Contains(md, "caf\uFFFD") || !strings.Contains(errOut, "not UTF-8") {
			t.Errorf("assemble --format %s: exit %d, valid %v, warns %q\n%s", format, code, utf8.ValidString(md), errOut, md)
		}
	}
	for _, f := range []string{"prompt.mdctx", "ctxplan.json"} {
		if raw, _ := os.ReadFile(filepath.Join(dir, "build", f)); !utf8.Valid(raw) {
			t.Errorf("build/%s is not UTF-8", f)
		}
	}
	if tree(t, dir) != files {
		t.Errorf("assembling changed the flow's files")
	}
}

// TestLostFlowJSON: a flow whose flow.json is gone or cut short says so,
// recovers what the flow's files still tell, and keeps the damaged file.
func TestLostFlowJSON(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	dir := flowDir(t, root)
	meta := filepath.Join(dir, "flow.json")
	must(t, "flow", "set", "mode", "fix", r)
	must(t, "evidence", "add", "render/render.go", "parser/parse.go::8,14", r)
	must(t, "evidence", "pin", "110", r)
	must(t, "evidence", "budget", "set", "20k", r)

	// Missing: the pins and budget come back from build/ctxplan.json, the
	// name from the id, and status names what is lost.
	os.Rename(meta, meta+".bak")
	out := must(t, "evidence", "status", r)
	for _, want := range []string{"flow.json is missing", "recovered", "pins", "lost", "mode"} {
		if !strings.Contains(out, want) {
			t.Errorf("status of a flow without flow.json lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(lineOf(out, "110_parse_go"), "pinned") {
		t.Errorf("the pin was not recovered:\n%s", out)
	}
	if out := must(t, "evidence", "budget", r); !strings.Contains(out, "20000") {
		t.Errorf("the budget was not recovered:\n%s", out)
	}
	must(t, "evidence", "toggle", "100", r) // a change writes flow.json again
	raw, _ := os.ReadFile(meta)
	if !strings.Contains(string(raw), `"name": "fix-parser"`) || !strings.Contains(string(raw), "110_parse_go_parse") {
		t.Errorf("rewritten flow.json:\n%s", raw)
	}
	if out := must(t, "evidence", "status", r); strings.Contains(out, "flow.json") {
		t.Errorf("the problem outlives the new flow.json:\n%s", out)
	}

	// Damaged: what parses is kept, the rest recovered; the damaged bytes
	// are kept before any rewrite.
	os.Rename(meta+".bak", meta)
	good, _ := os.ReadFile(meta)
	cut := good[:strings.Index(string(good), `"pinned"`)+12]
	os.WriteFile(meta, cut, 0o600)
	out, errOut, code := runCLI(t, "evidence", "status", r)
	if code != 0 || !strings.Contains(out, "flow.json is damaged") || !strings.Contains(out, "flow.json.damaged") {
		t.Errorf("status of a damaged flow.json: exit %d\n%s%s", code, out, errOut)
	}
	if !strings.Contains(lineOf(out, "110_parse_go"), "pinned") {
		t.Errorf("the pin was not recovered:\n%s", out)
	}
	if raw, _ := os.ReadFile(meta); string(raw) != string(cut) {
		t.Errorf("status changed the damaged flow.json")
	}
	_, errOut, _ = runCLI(t, "evidence", "toggle", "100", r)
	if !strings.Contains(errOut, "flow.json is damaged") {
		t.Errorf("a change to a flow with a damaged flow.json does not warn: %q", errOut)
	}
	if raw, _ := os.ReadFile(meta + ".damaged"); string(raw) != string(cut) {
		t.Errorf("flow.json.damaged holds %q", raw)
	}
	raw, _ = os.ReadFile(meta)
	if !strings.Contains(string(raw), `"mode": "fix"`) || !strings.Contains(string(raw), `"name": "fix parser"`) {
		t.Errorf("what parsed was not kept:\n%s", raw)
	}
}

// TestSelectorEdges: a hint that is a selector works; empty byte ranges
// are refused; a file whose name holds "::" can be selected.
func TestSelectorEdges(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	dir := flowDir(t, root)
	before := tree(t, dir)
	for _, sel := range []string{"core/flow.sh::999999", "core/flow.sh::999999,1000000", "core/flow.sh::99999c", "core/flow.sh::10c,99999c"} {
		_, errOut, code := runCLI(t, "evidence", "add", sel, r)
		if code == 0 {
			t.Fatalf("add %s succeeded", sel)
		}
		// Every selector the message suggests must add a part.
		for _, word := range strings.Fields(errOut) {
			word = strings.Trim(word, "(),:;")
			if !strings.HasPrefix(word, "core/flow.sh") || word == strings.TrimPrefix(sel, "") {
				continue
			}
			if _, e2, c2 := runCLI(t, "evidence", "add", word, r); c2 != 0 && !strings.Contains(e2, "already in the flow") {
				t.Errorf("add %s suggests %s, which fails: %s", sel, word, e2)
			}
		}
		if strings.Contains(errOut, "use "+sel) {
			t.Errorf("add %s suggests itself: %s", sel, errOut)
		}
	}
	must(t, "evidence", "remove", "100-199", r)
	_, errOut, code := runCLI(t, "evidence", "add", "core/flow.sh::5c,5c", r)
	if code == 0 || !strings.Contains(errOut, "empty") {
		t.Errorf("an empty byte range: exit %d %s", code, errOut)
	}
	if tree(t, dir) != before {
		t.Errorf("a refused selector changed the flow")
	}
	os.WriteFile(filepath.Join(root, "a::b.txt"), []byte("colons\n"), 0o644)
	os.WriteFile(filepath.Join(root, "c::1.txt"), []byte("digits\n"), 0o644)
	out := must(t, "evidence", "add", "a::b.txt", "a::b.txt::1,1#t", "c::1.txt::", "--force", r)
	if strings.Count(out, "✓ Added") != 3 {
		t.Errorf("adding files named with '::':\n%s", out)
	}
	md := must(t, "assemble", r)
	if !strings.Contains(md, "colons") || !strings.Contains(md, "digits") {
		t.Errorf("the parts are not assembled:\n%s", md)
	}
}

// TestFlowFilesAndOutputNeverBlock: flow.json, ctxplan.json and the
// output file of from-output as FIFOs or devices never block a command.
func TestFlowFilesAndOutputNeverBlock(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	dir := flowDir(t, root)
	must(t, "evidence", "add", "render/render.go", r)

	// from-output of a FIFO nobody writes reads nothing and returns.
	fifo := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	within(t, "from-output of a FIFO without a writer", func() {
		_, errOut, code := runCLI(t, "evidence", "from-output", fifo, r)
		if code == 0 || !strings.Contains(errOut, "none inside the workspace") {
			t.Errorf("from-output of an idle FIFO: exit %d %s", code, errOut)
		}
	})
	// A pipe with a writer is read as a stream, as <(go test ./...) gives.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	pw.Write([]byte("--- FAIL: TestParse (0.00s)\n    " + filepath.Join(root, "parser", "parse_test.go") + ":6: want an error\nFAIL\n"))
	pw.Close()
	within(t, "from-output of a pipe", func() {
		out := must(t, "evidence", "from-output", fmt.Sprintf("/proc/self/fd/%d", pr.Fd()), r)
		if !strings.Contains(out, "parser/parse_test.go") {
			t.Errorf("from-output of a pipe:\n%s", out)
		}
	})
	within(t, "from-output of a device", func() {
		_, errOut, code := runCLI(t, "evidence", "from-output", "/dev/zero", r)
		if code == 0 || !strings.Contains(errOut, "not a regular file") {
			t.Errorf("from-output of /dev/zero: exit %d %s", code, errOut)
		}
	})

	// ctxplan.json as a FIFO, with flow.json gone: recovery reads neither.
	plan := filepath.Join(dir, "build", "ctxplan.json")
	os.Remove(plan)
	os.Rename(filepath.Join(dir, "flow.json"), filepath.Join(dir, "flow.json.bak"))
	if err := syscall.Mkfifo(plan, 0o600); err != nil {
		t.Fatal(err)
	}
	within(t, "status with a FIFO ctxplan.json", func() {
		if out := must(t, "evidence", "status", r); !strings.Contains(out, "flow.json is missing") {
			t.Errorf("status:\n%s", out)
		}
		if out := must(t, "evidence", "plan", r); !strings.Contains(out, `"flow_id"`) {
			t.Errorf("plan:\n%s", out)
		}
	})
	// flow.json as a FIFO is refused with its name.
	meta := filepath.Join(dir, "flow.json")
	if err := syscall.Mkfifo(meta, 0o600); err != nil {
		t.Fatal(err)
	}
	within(t, "status with a FIFO flow.json", func() {
		_, errOut, code := runCLI(t, "evidence", "status", r)
		if code == 0 || !strings.Contains(errOut, "flow.json") || !strings.Contains(errOut, "not a regular file") {
			t.Errorf("status with a FIFO flow.json: exit %d %s", code, errOut)
		}
	})
}

// TestKilledWritesAreSwept: the temporary files a command killed
// mid-write leaves in a flow (flow.json's, a part's, a turn's, a probe)
// are removed by the next command that changes the flow, run as a
// process; the temporary file a live writer is still writing (here the
// test's own, locked as every writer's is) is left alone.
func TestKilledWritesAreSwept(t *testing.T) {
	root := flowWorkspace(t)
	r := "--root=" + root
	must(t, "evidence", "add", "parser/parse.go", r)
	dir := flowDir(t, root)
	left := []string{".flow.json.tmp-1234", "ctx/evidence/.100_parse_go.evidence.md.tmp-5678", "build/.probe-42", "turns/.001.answer.md.tmp-99"}
	for _, rel := range left {
		// What a kill leaves: the file, and no process holding it.
		writeFile(t, dir, rel, "half of it")
	}
	live, err := fsafe.WriteTemp(filepath.Join(dir, "ctx", "evidence", "110_render_go.evidence.md"), []byte("being written"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer live.Discard()
	if out, err := dossier("evidence", "toggle", "off", "100", r).CombinedOutput(); err != nil {
		t.Fatalf("toggle: %v\n%s", err, out)
	}
	for _, rel := range left {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel))); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there: %v", rel, err)
		}
	}
	if _, err := os.Lstat(live.Name()); err != nil {
		t.Errorf("a live writer's temporary file was removed: %v", err)
	}
}
