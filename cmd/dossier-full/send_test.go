package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dossierhq/dossier/assemble/send/sendtest"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

const sendKey = "sk-e2e-4f1c9a7b2d8e6f3a5c0b9d7e1f2a3b4c"

// sendWorkspace is a workspace with a flow (policy, request, evidence) and
// a user config whose [llm] points at a fake server speaking api.
func sendWorkspace(t *testing.T, api string, sc sendtest.Script, extra string) (string, *sendtest.Server) {
	t.Helper()
	t.Setenv("FLOW_DIR", "")
	t.Setenv("TEST_LLM_KEY", sendKey)
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	srv := sendtest.New(t, sc)
	os.MkdirAll(filepath.Join(home, "dossier"), 0o755)
	if !strings.Contains(extra, "timeout") {
		extra += "timeout = \"2s\"\n"
	}
	if !strings.Contains(extra, "max_retries") {
		extra += "max_retries = -1\n"
	}
	cfg := fmt.Sprintf("[llm]\nbase_url = %q\nmodel = \"gpt-4o-mini\"\napi_key_env = \"TEST_LLM_KEY\"\napi = %q\n%s", srv.URL, api, extra)
	os.WriteFile(filepath.Join(home, "dossier", "config.toml"), []byte(cfg), 0o644)
	root := t.TempDir()
	writeTree(t, root, map[string]string{"calc/calc.go": "package calc\n\n// Div divides.\nfunc Div(a, b int) int { return a / b }\n"})
	must(t, "flow", "new", "div", "--root", root, "--mode", "fix", "--request", "Why does Div panic on zero?")
	must(t, "evidence", "add", "--root", root, "--role", "system", "--text", "Answer in one paragraph.")
	must(t, "evidence", "add", "--root", root, "calc/calc.go")
	return root, srv
}

// runSend runs `dossier send` as a process, stdout a pipe.
func runSend(t *testing.T, root string, args ...string) (string, string, int) {
	t.Helper()
	cmd := dossier(append([]string{"send", "--root", root}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// flowHash is every file under the flow with its mode and content.
func flowHash(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, _ := d.Info()
		raw, _ := os.ReadFile(p)
		sum := sha256.Sum256(raw)
		rel, _ := filepath.Rel(dir, p)
		lines = append(lines, rel+" "+st.Mode().String()+" "+hex.EncodeToString(sum[:]))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// noKey fails when the key is in any output or in any file of the
// workspace.
func noKey(t *testing.T, root string, outputs ...string) {
	t.Helper()
	for _, o := range outputs {
		if strings.Contains(o, sendKey) || strings.Contains(o, sendKey[8:]) {
			t.Errorf("an output holds the key:\n%s", o)
		}
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if raw, _ := os.ReadFile(p); bytes.Contains(raw, []byte(sendKey[8:])) {
				t.Errorf("%s holds the key", p)
			}
		}
		return nil
	})
}

func TestSendStreamsKeepsAndFollowsUp(t *testing.T) {
	for _, api := range []string{"responses", "chat"} {
		t.Run(api, func(t *testing.T) {
			root, srv := sendWorkspace(t, api, sendtest.Script{Chunks: []string{"Div ", "divides ", "by zero."}, Usage: &sendtest.Usage{Input: 1234, Output: 567}}, "")
			out, errOut, code := runSend(t, root)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			// A pipe gets the answer, byte for byte, nothing else.
			if out != "Div divides by zero." {
				t.Errorf("stdout %q", out)
			}
			endpoint := srv.URL + "/responses"
			if api == "chat" {
				endpoint = srv.URL + "/chat/completions"
			}
			if !strings.Contains(errOut, "→ POST "+endpoint+" · gpt-4o-mini · ") {
				t.Errorf("not announced: %s", errOut)
			}
			rel := filepath.Join(".dossier", "flows", filepath.Base(flowDir(t, root)), "turns", "001.answer.md")
			if !strings.Contains(errOut, "─ 1,234 in · 567 out · ") || !strings.Contains(errOut, " s · $0.0005 · turn 1 ("+rel+")") {
				t.Errorf("summary line: %s", errOut)
			}
			if strings.Index(errOut, "→ POST") > strings.Index(errOut, "─ 1,234") {
				t.Errorf("announced after: %s", errOut)
			}
			ans, err := os.ReadFile(filepath.Join(root, rel))
			if err != nil || !strings.Contains(string(ans), "status=completed -->\n\nDiv divides by zero.\n") {
				t.Errorf("answer file %v:\n%s", err, ans)
			}
			// A hand edit is what the follow-up sends; the context is the
			// flow's now.
			os.WriteFile(filepath.Join(root, rel), bytes.Replace(ans, []byte("by zero."), []byte("by zero, says the editor."), 1), 0o600)
			writeTree(t, root, map[string]string{"calc/mul.go": "package calc\n\nfunc Mul(a, b int) int { return a * b }\n"})
			must(t, "evidence", "add", "--root", root, "calc/mul.go")
			srv.SetScript(sendtest.Script{Text: "Mul is fine."})
			out, errOut, code = runSend(t, root, "--follow-up", "And Mul?")
			if code != 0 || out != "Mul is fine." || !strings.Contains(errOut, "turn 2 (") || !strings.Contains(errOut, "(1 earlier turn resent)") {
				t.Fatalf("follow-up: exit %d\n%s\n%s", code, out, errOut)
			}
			b := string(srv.Requests()[1].Body)
			for _, want := range []string{`Why does Div panic on zero?`, `Div divides by zero, says the editor.`, `And Mul?`, `func Mul(a, b int)`, `func Div(a, b int)`} {
				if !strings.Contains(b, want) {
					t.Errorf("follow-up body lacks %q:\n%s", want, b)
				}
			}
			show := must(t, "flow", "show", "--root", root)
			if !strings.Contains(show, "Turns:   2 in ") || !strings.Contains(show, "Why does Div panic on zero?") || !strings.Contains(show, "completed  And Mul?") {
				t.Errorf("flow show:\n%s", show)
			}
			noKey(t, root, out, errOut, show)
		})
	}
}

func TestSendServerState(t *testing.T) {
	root, srv := sendWorkspace(t, "responses", sendtest.Script{ResponseID: "resp_kept"}, "server_state = true\n")
	if _, errOut, code := runSend(t, root); code != 0 {
		t.Fatal(errOut)
	}
	_, errOut, code := runSend(t, root, "--follow-up", "More.")
	if code != 0 || !strings.Contains(errOut, "previous_response_id") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var v map[string]any
	json.Unmarshal(srv.Requests()[1].Body, &v)
	if v["previous_response_id"] != "resp_kept" || len(v["input"].([]any)) != 1 {
		t.Errorf("body %s", srv.Requests()[1].Body)
	}
}

func TestSendDryRun(t *testing.T) {
	root, srv := sendWorkspace(t, "chat", sendtest.Script{}, "")
	os.Unsetenv("TEST_LLM_KEY") // a dry run needs no key
	before := flowHash(t, flowDir(t, root))
	out, errOut, code := runSend(t, root, "--dry-run", "--model", "qwen2.5-coder", "--max-output-tokens", "64")
	if code != 0 || !strings.Contains(errOut, "dry run: nothing sent") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d, %d requests: %s", code, len(srv.Requests()), errOut)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["model"] != "qwen2.5-coder" || v["stream"] != true || v["max_tokens"] != 64.0 {
		t.Errorf("body %v:\n%s", err, out)
	}
	if flowHash(t, flowDir(t, root)) != before {
		t.Errorf("a dry run changed the flow")
	}
}

func TestSendJSON(t *testing.T) {
	root, _ := sendWorkspace(t, "responses", sendtest.Script{Text: "All good."}, "")
	out, errOut, code := runSend(t, root, "--json")
	var j struct {
		Turn   int    `json:"turn"`
		Text   string `json:"text"`
		Status string `json:"status"`
		Answer string `json:"answer"`
		Usage  struct{ Input, Output int }
	}
	if code != 0 || json.Unmarshal([]byte(out), &j) != nil || j.Turn != 1 || j.Text != "All good." || j.Status != "completed" || j.Usage.Input != 42 {
		t.Errorf("exit %d: %s\n%s", code, out, errOut)
	}
}

// TestSendFailuresLeaveTheFlow: each failure before any text names the
// endpoint and the problem, never the key, and changes nothing.
func TestSendFailuresLeaveTheFlow(t *testing.T) {
	for name, tc := range map[string]struct {
		sc   sendtest.Script
		want string
	}{
		"401":   {sendtest.Script{Status: 401}, "401"},
		"404":   {sendtest.Script{Status: 404}, "gpt-4o-mini"},
		"429":   {sendtest.Script{RateLimit: 9, RetryAfter: "1"}, "429"},
		"stall": {sendtest.Script{StallHeaders: true}, "2s"},
	} {
		t.Run(name, func(t *testing.T) {
			root, srv := sendWorkspace(t, "responses", tc.sc, "")
			before := flowHash(t, flowDir(t, root))
			out, errOut, code := runSend(t, root)
			if code != exitError || !strings.Contains(errOut, srv.URL) || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d: %s", code, errOut)
			}
			if strings.Contains(errOut, "goroutine") || out != "" {
				t.Errorf("stdout %q, stderr %s", out, errOut)
			}
			if flowHash(t, flowDir(t, root)) != before {
				t.Errorf("the flow changed")
			}
			noKey(t, root, out, errOut)
		})
	}
}

// TestSendRetrySaysSo: a 429 before any text is tried again, and stderr
// says so.
func TestSendRetrySaysSo(t *testing.T) {
	root, srv := sendWorkspace(t, "chat", sendtest.Script{RateLimit: 1, RetryAfter: "0", Text: "Fine."}, "max_retries = 2\n")
	out, errOut, code := runSend(t, root)
	if code != 0 || out != "Fine." || len(srv.Requests()) != 2 || !strings.Contains(errOut, "429") || !strings.Contains(errOut, "trying again in") {
		t.Errorf("exit %d, %d requests: %q\n%s", code, len(srv.Requests()), out, errOut)
	}
}

// TestSendStoppedBySignal: SIGINT (Ctrl-C), SIGTERM (kill) or SIGHUP (the
// terminal closed) while the server stalls mid-answer keeps what arrived,
// marked incomplete, says where and by what, and exits 128 + the signal.
func TestSendStoppedBySignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(stopSignals[sig], func(t *testing.T) {
			root, _ := sendWorkspace(t, "chat", sendtest.Script{Chunks: []string{"So ", "far ", "never"}, Stall: true, StallAfter: 2}, "timeout = \"60s\"\n")
			cmd := dossier("send", "--root", root)
			stdout, _ := cmd.StdoutPipe()
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(stdout)
			got := ""
			for got != "So far " {
				b, err := r.ReadByte()
				if err != nil {
					t.Fatalf("stdout ended after %q: %s", got, errb.String())
				}
				got += string(b)
			}
			cmd.Process.Signal(sig)
			rest, _ := io.ReadAll(r)
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) || len(rest) != 0 {
				t.Fatalf("wait %v, more output %q: %s", err, rest, errb.String())
			}
			ans := filepath.Join(flowDir(t, root), "turns", "001.answer.md")
			if !strings.Contains(errb.String(), "stopped by "+stopSignals[sig]+"; the partial answer is kept, marked incomplete, in "+shortPath(root, ans)) {
				t.Errorf("stderr: %s", errb.String())
			}
			raw, _ := os.ReadFile(ans)
			if !strings.Contains(string(raw), "status=incomplete; reason=cancelled -->\n\nSo far \n") {
				t.Errorf("answer:\n%s", raw)
			}
		})
	}
}

func TestSendWithoutLLM(t *testing.T) {
	root, _ := sendWorkspace(t, "chat", sendtest.Script{}, "")
	os.Remove(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "dossier", "config.toml"))
	_, errOut, code := runCLI(t, "send", "--root", root)
	// The file to write is named as it is, XDG_CONFIG_HOME resolved.
	userFile := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "dossier", "config.toml")
	for _, want := range []string{"no LLM endpoint: add an [llm] section to " + userFile + " (your config)", "[llm]", `base_url = "https://api.openai.com/v1"`, `api_key_env = "OPENAI_API_KEY"`, `base_url = "http://localhost:11434/v1"`} {
		if code != exitError || !strings.Contains(errOut, want) {
			t.Errorf("exit %d, stderr lacks %q: %s", code, want, errOut)
		}
	}
	// An untrusted workspace's endpoint is not used, and says so.
	os.WriteFile(filepath.Join(root, ".dossier.toml"), []byte("[llm]\nbase_url = \"https://evil.example/v1\"\nmodel = \"m\"\n"), 0o644)
	_, errOut, code = runCLI(t, "send", "--root", root)
	if code != exitError || !strings.Contains(errOut, "ignoring [llm] base_url, model") || !strings.Contains(errOut, "no LLM endpoint") {
		t.Errorf("untrusted: exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCLI(t, "send", "--root", root, "--api", "completions"); code != exitUsage || !strings.Contains(errOut, "responses or chat") {
		t.Errorf("bad --api: exit %d %s", code, errOut)
	}
}

func TestSendMissingKeyVariable(t *testing.T) {
	root, srv := sendWorkspace(t, "chat", sendtest.Script{}, "")
	os.Unsetenv("TEST_LLM_KEY")
	_, errOut, code := runSend(t, root)
	if code != exitError || !strings.Contains(errOut, "TEST_LLM_KEY is not set") || len(srv.Requests()) != 0 {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestSendRedactsSecrets: a part holding a secret goes redacted unless
// [secrets] allow.
func TestSendRedactsSecrets(t *testing.T) {
	root, srv := sendWorkspace(t, "responses", sendtest.Script{}, "")
	writeTree(t, root, map[string]string{"calc/keys.go": secrettest.GoFile()})
	must(t, "evidence", "add", "--root", root, "calc/keys.go")
	_, errOut, code := runSend(t, root)
	body := string(srv.Requests()[0].Body)
	if code != 0 || strings.Contains(body, secrettest.AWSKey) || !strings.Contains(body, "[REDACTED:aws-access-token]") || !strings.Contains(errOut, "! secret in") {
		t.Errorf("exit %d: %s\n%s", code, errOut, body)
	}
	kept, _ := os.ReadFile(filepath.Join(flowDir(t, root), "turns", "001.request.json"))
	if bytes.Contains(kept, []byte(secrettest.AWSKey)) {
		t.Errorf("request.json keeps the secret")
	}
	cfg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "dossier", "config.toml")
	raw, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, append(raw, []byte("[secrets]\nallow = true\n")...), 0o644)
	if _, errOut, code := runSend(t, root, "--follow-up", "again"); code != 0 || !strings.Contains(string(srv.Requests()[1].Body), secrettest.AWSKey) {
		t.Errorf("[secrets] allow: exit %d %s", code, errOut)
	}
}

// TestSendTerminalEndsTheLine: on a terminal the summary starts on its own
// line; a model's escape sequences are shown escaped, not run.
func TestSendTerminalEndsTheLine(t *testing.T) {
	root, _ := sendWorkspace(t, "chat", sendtest.Script{Chunks: []string{"red \x1b[31mtext", " ends"}}, "")
	var out, errb bytes.Buffer
	code := executeOn(t.Context(), []string{"send", "--root", root}, &out, &errb, func(w io.Writer) bool { return w == &out })
	if code != 0 || strings.Contains(out.String(), "\x1b") || !strings.HasSuffix(out.String(), " ends\n") {
		t.Errorf("exit %d: %q %s", code, out.String(), errb.String())
	}
	_ = time.Second
}

// TestSendStdoutClosed: a reader that goes away early (`| head -1`) does
// not kill dossier with SIGPIPE; the whole answer is still kept and the
// exit is clean.
func TestSendStdoutClosed(t *testing.T) {
	chunks := make([]string, 40)
	for i := range chunks {
		chunks[i] = fmt.Sprintf("line %d\n", i)
	}
	root, _ := sendWorkspace(t, "chat", sendtest.Script{Chunks: chunks, Delay: 10 * time.Millisecond}, "")
	cmd := dossier("send", "--root", root)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(stdout).ReadString('\n')
	stdout.Close() // as head does after its line
	if err != nil || first != "line 0\n" {
		t.Fatalf("first line %q, %v", first, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("send ended with %v when its reader went away:\n%s", err, errb.String())
	}
	raw, err := os.ReadFile(filepath.Join(flowDir(t, root), "turns", "001.answer.md"))
	if err != nil || !strings.Contains(string(raw), "line 39\n") || !strings.Contains(string(raw), "status=completed") {
		t.Fatalf("kept answer: %v\n%s", err, raw)
	}
	if !strings.Contains(errb.String(), "stdout closed") {
		t.Errorf("stderr does not say stdout closed:\n%s", errb.String())
	}
}
