package evidence

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dossierhq/dossier/assemble/send"
	"github.com/dossierhq/dossier/assemble/send/sendtest"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

const testKey = "sk-test-0123456789abcdefSECRETKEY"

// sendEngine is a workspace with a flow (a policy, a request, one piece
// of evidence) and an engine pointed at a fake server.
func sendEngine(t *testing.T, api send.API, sc sendtest.Script) (*Engine, *sendtest.Server) {
	t.Helper()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "calc"), 0o755)
	os.WriteFile(filepath.Join(root, "calc", "calc.go"), []byte("package calc\n\n// Div divides.\nfunc Div(a, b int) int { return a / b }\n"), 0o644)
	e := NewEngine(root)
	e.Getenv = func(k string) string {
		if k == "TEST_LLM_KEY" {
			return testKey
		}
		return ""
	}
	e.Now = func() time.Time { return time.Date(2026, 11, 24, 4, 0, 0, 0, time.UTC) }
	exec(t, e, "flow", "new", "div", "--mode", "fix", "--request", "Why does Div panic on zero?")
	exec(t, e, "evidence", "add", "--role", "system", "--text", "Answer in one paragraph.")
	exec(t, e, "evidence", "add", "calc/calc.go")
	srv := sendtest.New(t, sc)
	e.LLM = LLMConfig{Config: send.Config{BaseURL: srv.URL, Model: "gpt-4o-mini", API: api, MaxRetries: -1}, APIKeyEnv: "TEST_LLM_KEY"}
	return e, srv
}

func exec(t *testing.T, e *Engine, args ...string) string {
	t.Helper()
	var w bytes.Buffer
	if err := e.Exec(context.Background(), args, &w); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, w.String())
	}
	return w.String()
}

// hashDir is every file's path, mode and content under dir.
func hashDir(t *testing.T, dir string) string {
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

func body(t *testing.T, r sendtest.Request) map[string]any {
	t.Helper()
	v, err := r.JSON()
	if err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, r.Body)
	}
	return v
}

// messages is the body's input (Responses) or messages (chat) as
// role: texts.
func messages(t *testing.T, v map[string]any) (roles []string, texts [][]string) {
	t.Helper()
	list, _ := v["input"].([]any)
	if list == nil {
		list, _ = v["messages"].([]any)
	}
	for _, m := range list {
		m := m.(map[string]any)
		roles = append(roles, m["role"].(string))
		var ts []string
		switch c := m["content"].(type) {
		case string:
			ts = append(ts, c)
		case []any:
			for _, it := range c {
				ts = append(ts, it.(map[string]any)["text"].(string))
			}
		}
		texts = append(texts, ts)
	}
	return roles, texts
}

func TestSendKeepsTheTurn(t *testing.T) {
	for _, api := range []send.API{send.Responses, send.Chat} {
		t.Run(string(api), func(t *testing.T) {
			e, srv := sendEngine(t, api, sendtest.Script{Chunks: []string{"Div ", "divides ", "by zero."}, Usage: &sendtest.Usage{Input: 1200, Output: 30}})
			var got strings.Builder
			var errb bytes.Buffer
			e.Stderr = &errb
			turn, err := e.Send(context.Background(), SendOptions{}, func(s string) { got.WriteString(s) })
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != "Div divides by zero." || turn.Text != got.String() || turn.N != 1 || turn.Status != send.StatusCompleted {
				t.Errorf("streamed %q, turn %+v", got.String(), turn)
			}
			if !turn.HasUsage || turn.Usage.Input != 1200 || turn.Usage.Output != 30 || !turn.HasCost || turn.Cost <= 0 {
				t.Errorf("usage/cost: %+v", turn)
			}
			if !strings.Contains(errb.String(), "→ POST "+srv.URL) || !strings.Contains(errb.String(), "gpt-4o-mini") {
				t.Errorf("not announced: %q", errb.String())
			}
			reqs := srv.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			if reqs[0].Header.Get("Authorization") != "Bearer "+testKey {
				t.Errorf("key not sent: %q", reqs[0].Header.Get("Authorization"))
			}
			v := body(t, reqs[0])
			roles, texts := messages(t, v)
			wantRoles := []string{"user"}
			if api == send.Chat {
				wantRoles = []string{"system", "user"}
			} else if v["instructions"] != "Answer in one paragraph.\n" {
				t.Errorf("instructions %q", v["instructions"])
			}
			last := texts[len(texts)-1]
			if strings.Join(roles, ",") != strings.Join(wantRoles, ",") || len(last) != 2 ||
				last[0] != "[MODE: fix]\n[INSTRUCTION]\nWhy does Div panic on zero?\n" ||
				!strings.HasPrefix(last[1], "[CONTEXT]") || !strings.Contains(last[1], "func Div(a, b int)") {
				t.Errorf("layout: %v %q", roles, texts)
			}
			// The turn files: the body as posted, the answer with its header.
			kept, _ := os.ReadFile(turn.Request)
			var a, b any
			json.Unmarshal(kept, &a)
			json.Unmarshal(reqs[0].Body, &b)
			if !jsonEqual(a, b) {
				t.Errorf("request.json is not what was posted:\n%s\nposted:\n%s", kept, reqs[0].Body)
			}
			ans, _ := os.ReadFile(turn.Answer)
			if !strings.HasPrefix(string(ans), "<!-- turn=1; time=2026-11-24T04:00:00Z; model=gpt-4o-mini; api="+string(api)) ||
				!strings.Contains(string(ans), "tokens_in=1200; tokens_out=30;") || !strings.Contains(string(ans), "status=completed -->\n\nDiv divides by zero.\n") {
				t.Errorf("answer file:\n%s", ans)
			}
			if filepath.Base(filepath.Dir(turn.Answer)) != "turns" || filepath.Base(turn.Answer) != "001.answer.md" {
				t.Errorf("answer at %s", turn.Answer)
			}
			for _, p := range []string{turn.Answer, turn.Request, filepath.Dir(turn.Answer)} {
				if st, err := os.Stat(p); err != nil || (st.Mode().Perm() != FileMode && st.Mode().Perm() != DirMode) {
					t.Errorf("%s: mode %v %v: want the owner's alone", p, st.Mode(), err)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(filepath.Dir(turn.Answer), ".*")); len(left) != 0 {
				t.Errorf("temporary files left: %v", left)
			}
			turns, err := e.Turns()
			if err != nil || len(turns) != 1 || turns[0].Text != "Div divides by zero.\n" || turns[0].Asked() != "Why does Div panic on zero?" || turns[0].Usage.Output != 30 {
				t.Errorf("Turns = %+v, %v", turns, err)
			}
		})
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y) && len(x) > 4
}

// TestFollowUpSendsHistoryAndTheCurrentContext: earlier turns go along as
// kept (a hand edit included), the follow-up is the new instruction, and
// the context is the flow's now, not turn 1's.
func TestFollowUpSendsHistoryAndTheCurrentContext(t *testing.T) {
	for _, api := range []send.API{send.Responses, send.Chat} {
		t.Run(string(api), func(t *testing.T) {
			e, srv := sendEngine(t, api, sendtest.Script{Text: "First answer."})
			first, err := e.Send(context.Background(), SendOptions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := os.ReadFile(first.Answer)
			os.WriteFile(first.Answer, []byte(strings.Replace(string(raw), "First answer.", "First answer, edited by hand.", 1)), 0o600)
			os.WriteFile(filepath.Join(e.Root, "calc", "mul.go"), []byte("package calc\n\nfunc Mul(a, b int) int { return a * b }\n"), 0o644)
			exec(t, e, "evidence", "add", "calc/mul.go")
			srv.SetScript(sendtest.Script{Text: "Second."})
			second, err := e.Send(context.Background(), SendOptions{FollowUp: "And Mul?"}, nil)
			if err != nil || second.N != 2 {
				t.Fatalf("turn %d: %v", second.N, err)
			}
			roles, texts := messages(t, body(t, srv.Requests()[1]))
			if api == send.Chat {
				roles, texts = roles[1:], texts[1:]
			}
			if strings.Join(roles, ",") != "user,assistant,user" {
				t.Fatalf("roles %v", roles)
			}
			if len(texts[0]) != 1 || texts[0][0] != "[MODE: fix]\n[INSTRUCTION]\nWhy does Div panic on zero?\n" {
				t.Errorf("history instruction %q", texts[0])
			}
			if texts[1][0] != "First answer, edited by hand.\n" {
				t.Errorf("history answer %q", texts[1])
			}
			if texts[2][0] != "[MODE: fix]\n[INSTRUCTION]\nAnd Mul?\n" || !strings.Contains(texts[2][1], "func Mul") || !strings.Contains(texts[2][1], "func Div") {
				t.Errorf("new message %q", texts[2])
			}
			turns, _ := e.Turns()
			if len(turns) != 2 || turns[1].Asked() != "And Mul?" {
				t.Errorf("turns %+v", turns)
			}
		})
	}
}

func TestServerStateUsesPreviousResponseID(t *testing.T) {
	e, srv := sendEngine(t, send.Responses, sendtest.Script{ResponseID: "resp_abc"})
	e.LLM.ServerState = true
	if _, err := e.Send(context.Background(), SendOptions{}, nil); err != nil {
		t.Fatal(err)
	}
	out, err := e.PrepareSend(SendOptions{FollowUp: "More."})
	if err != nil || !out.ServerState || !strings.Contains(out.Announce(), "previous_response_id") {
		t.Fatalf("prepare: %+v %v", out, err)
	}
	if _, err := e.SendPrepared(context.Background(), out, nil); err != nil {
		t.Fatal(err)
	}
	v := body(t, srv.Requests()[1])
	roles, _ := messages(t, v)
	if v["previous_response_id"] != "resp_abc" || v["store"] != true || strings.Join(roles, ",") != "user" {
		t.Errorf("second body: %v", v)
	}
}

// TestServerStateChainsOnlyAWholeAnswerFromThisServer: a cancelled turn,
// or one answered by another endpoint, is resent as history instead of
// being chained to by an id the server does not hold as kept.
func TestServerStateChainsOnlyAWholeAnswerFromThisServer(t *testing.T) {
	for name, mutate := range map[string]func(e *Engine, dir string){
		"incomplete": func(e *Engine, dir string) {
			rewrite(t, dir, "status=completed", "status=incomplete; reason=cancelled")
		},
		"other endpoint": func(e *Engine, dir string) {
			e.LLM.BaseURL = strings.Replace(e.LLM.BaseURL, "127.0.0.1", "localhost", 1)
		},
	} {
		t.Run(name, func(t *testing.T) {
			e, srv := sendEngine(t, send.Responses, sendtest.Script{ResponseID: "resp_abc"})
			e.LLM.ServerState = true
			turn, err := e.Send(context.Background(), SendOptions{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			mutate(e, turn.Answer)
			if _, err := e.Send(context.Background(), SendOptions{FollowUp: "More."}, nil); err != nil {
				t.Fatal(err)
			}
			v := body(t, srv.Requests()[len(srv.Requests())-1])
			roles, _ := messages(t, v)
			if v["previous_response_id"] != nil || v["store"] != true || strings.Join(roles, ",") != "user,assistant,user" {
				t.Errorf("second body: %v", v)
			}
		})
	}
}

// rewrite replaces old by new in the file at path.
func rewrite(t *testing.T, path, old, new string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(raw), old) {
		t.Fatalf("%s lacks %q (%v)", path, old, err)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(raw), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFailedSendLeavesTheFlowAsItWas: refused before any text, nothing
// in the flow changes, byte for byte, and the error never holds the key.
func TestFailedSendLeavesTheFlowAsItWas(t *testing.T) {
	for name, sc := range map[string]sendtest.Script{
		"401":       {Status: 401},
		"404":       {Status: 404},
		"429":       {RateLimit: 5, RetryAfter: "1"},
		"malformed": {Malformed: true},
		"empty":     {Chunks: []string{}},
	} {
		t.Run(name, func(t *testing.T) {
			e, srv := sendEngine(t, send.Responses, sc)
			e.LLM.Timeout = 2 * time.Second
			f, _ := e.Flow()
			before := hashDir(t, f.Dir)
			_, err := e.Send(context.Background(), SendOptions{}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), srv.URL) {
				t.Errorf("error %q: want the endpoint, never the key", err)
			}
			if after := hashDir(t, f.Dir); after != before {
				t.Errorf("the flow changed:\n%s\n---\n%s", before, after)
			}
		})
	}
}

// TestUnwritableTurnsSendsNothing: a flow whose turns/ cannot take the
// answer (a symlink to a directory that is gone, which stops root too; a
// read-only directory) is refused before the request goes, with the
// directory named, and left as it was.
func TestUnwritableTurnsSendsNothing(t *testing.T) {
	for name, spoil := range map[string]func(t *testing.T, turns string){
		"dangling symlink": func(t *testing.T, turns string) {
			if err := os.Symlink(filepath.Join(t.TempDir(), "gone"), turns); err != nil {
				t.Fatal(err)
			}
		},
		"read-only": func(t *testing.T, turns string) {
			os.Mkdir(turns, 0o500)
			t.Cleanup(func() { os.Chmod(turns, 0o700) })
			if f, err := os.CreateTemp(turns, "x"); err == nil {
				f.Close()
				t.Skip("running with privileges that ignore directory permissions")
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			e, srv := sendEngine(t, send.Chat, sendtest.Script{})
			f, _ := e.Flow()
			turns := filepath.Join(f.Dir, turnsDir)
			spoil(t, turns)
			before := hashDir(t, f.Dir)
			_, err := e.Send(context.Background(), SendOptions{}, nil)
			if err == nil || !strings.Contains(err.Error(), "cannot write "+turns) || !strings.Contains(err.Error(), "nothing was sent") {
				t.Errorf("err %v", err)
			}
			if n := len(srv.Requests()); n != 0 {
				t.Errorf("%d requests sent", n)
			}
			if hashDir(t, f.Dir) != before {
				t.Error("the flow changed")
			}
		})
	}
}

// TestErrorAfterTextKeepsThePartial: what streamed before the stream
// broke is kept, marked incomplete with the error as the reason, and the
// error still reaches the caller.
func TestErrorAfterTextKeepsThePartial(t *testing.T) {
	e, _ := sendEngine(t, send.Chat, sendtest.Script{Chunks: []string{"Part ", "one ", "never"}, Fail: "the model crashed", FailAfter: 2})
	turn, err := e.Send(context.Background(), SendOptions{}, nil)
	var se *send.Error
	if !errors.As(err, &se) || se.Kind != send.ErrStream {
		t.Fatalf("err %v", err)
	}
	if turn.N != 1 || turn.Text != "Part one " || turn.Status != "incomplete" || !strings.HasPrefix(turn.Reason, "error: stream") {
		t.Fatalf("turn %+v", turn)
	}
	turns, err := e.Turns()
	if err != nil || len(turns) != 1 || turns[0].Status != "incomplete" || !strings.Contains(turns[0].Reason, "the model crashed") {
		t.Errorf("kept %+v %v", turns, err)
	}
}

// TestCancelKeepsThePartial: cancelling while the server stalls keeps
// what arrived, marked incomplete (cancelled).
func TestCancelKeepsThePartial(t *testing.T) {
	for _, api := range []send.API{send.Responses, send.Chat} {
		t.Run(string(api), func(t *testing.T) {
			e, _ := sendEngine(t, api, sendtest.Script{Chunks: []string{"So ", "far ", "never"}, Stall: true, StallAfter: 2})
			ctx, cancel := context.WithCancel(context.Background())
			var mu sync.Mutex
			got := ""
			turn, err := e.Send(ctx, SendOptions{}, func(s string) {
				mu.Lock()
				defer mu.Unlock()
				if got += s; got == "So far " {
					cancel()
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v", err)
			}
			turns, terr := e.Turns()
			if turn.Text != "So far " || turn.Status != "incomplete" || turn.Reason != "cancelled" || terr != nil || len(turns) != 1 || turns[0].Reason != "cancelled" {
				t.Errorf("turn %+v, kept %+v %v", turn, turns, terr)
			}
		})
	}
}

func TestNothingToSend(t *testing.T) {
	e, srv := sendEngine(t, send.Responses, sendtest.Script{})
	exec(t, e, "evidence", "toggle", "off", "010")
	if _, err := e.Send(context.Background(), SendOptions{}, nil); !errors.Is(err, ErrNoRequest) || !strings.Contains(err.Error(), "--request") || !strings.Contains(err.Error(), "/request") {
		t.Errorf("no request: %v", err)
	}
	if _, err := e.Send(context.Background(), SendOptions{FollowUp: "Explain Div."}, nil); err != nil {
		t.Errorf("a follow-up is a request: %v", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests", n)
	}
	e.LLM.BaseURL = ""
	if _, err := e.PrepareSend(SendOptions{}); !errors.Is(err, ErrNoLLM) {
		t.Errorf("no endpoint: %v", err)
	}
}

func TestMissingKeyVariable(t *testing.T) {
	e, srv := sendEngine(t, send.Responses, sendtest.Script{})
	e.LLM.APIKeyEnv = "NOT_SET_ANYWHERE"
	_, err := e.Send(context.Background(), SendOptions{}, nil)
	if err == nil || !strings.Contains(err.Error(), "NOT_SET_ANYWHERE") || len(srv.Requests()) != 0 {
		t.Errorf("err %v, %d requests", err, len(srv.Requests()))
	}
}

// TestSecretsAreRedactedInWhatIsSent: evidence, follow-ups and hand-edited
// history all pass the exit's redaction; [secrets] allow sends them.
func TestSecretsAreRedactedInWhatIsSent(t *testing.T) {
	e, srv := sendEngine(t, send.Chat, sendtest.Script{})
	os.WriteFile(filepath.Join(e.Root, "calc", "keys.go"), []byte(secrettest.GoFile()), 0o644)
	exec(t, e, "evidence", "add", "calc/keys.go")
	var errb bytes.Buffer
	e.Stderr = &errb
	first, err := e.Send(context.Background(), SendOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(first.Answer)
	os.WriteFile(first.Answer, append(raw, []byte("pasted "+secrettest.GitHub+"\n")...), 0o600)
	if _, err := e.Send(context.Background(), SendOptions{FollowUp: "is " + secrettest.SlackBot + " fine?"}, nil); err != nil {
		t.Fatal(err)
	}
	for i, r := range srv.Requests() {
		for _, s := range secrettest.All() {
			if strings.Contains(string(r.Body), s) {
				t.Errorf("request %d carries a secret:\n%s", i, r.Body)
			}
		}
		if !strings.Contains(string(r.Body), "[REDACTED:aws-access-token]") {
			t.Errorf("request %d has no redaction mark", i)
		}
	}
	last := string(srv.Requests()[1].Body)
	if !strings.Contains(last, "[REDACTED:github-pat]") || !strings.Contains(last, "[REDACTED:slack-bot-token]") {
		t.Errorf("history or follow-up not redacted:\n%s", last)
	}
	for _, want := range []string{"! secret in 110_keys_go: calc/keys.go:", "! secret in turn 1's answer (" + first.Answer + "): line 4 (github-pat)", "! secret in the follow-up: line 1 (slack-bot-token)"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("no warning %q:\n%s", want, errb.String())
		}
	}
	e.AllowSecrets = true
	if _, err := e.Send(context.Background(), SendOptions{FollowUp: "again"}, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(srv.Requests()[2].Body), secrettest.AWSKey) {
		t.Errorf("[secrets] allow did not send it as it is")
	}
}

// TestDamagedTurnFileStopsTheSend: a turn that cannot be read is named,
// with the fix, before anything is posted; never dropped silently.
func TestDamagedTurnFileStopsTheSend(t *testing.T) {
	e, srv := sendEngine(t, send.Responses, sendtest.Script{})
	first, err := e.Send(context.Background(), SendOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, damage := range map[string]func(){
		"header": func() { os.WriteFile(first.Answer, []byte("no header any more\n"), 0o600) },
		"json":   func() { os.WriteFile(first.Request, []byte("{\"input\": [\n"), 0o600) },
		"lone":   func() { os.Remove(first.Answer) },
		"fifo":   func() { os.Remove(first.Answer); syscall.Mkfifo(first.Answer, 0o600) },
	} {
		t.Run(name, func(t *testing.T) {
			req, _ := os.ReadFile(first.Request)
			ans, _ := os.ReadFile(first.Answer)
			defer func() {
				os.Remove(first.Answer)
				os.WriteFile(first.Request, req, 0o600)
				os.WriteFile(first.Answer, ans, 0o600)
			}()
			damage()
			n := len(srv.Requests())
			_, err := e.Send(context.Background(), SendOptions{FollowUp: "next"}, nil)
			if err == nil || !strings.Contains(err.Error(), "001.") || len(srv.Requests()) != n {
				t.Errorf("err %v, %d requests", err, len(srv.Requests())-n)
			}
			if _, err := e.Turns(); err == nil {
				t.Errorf("Turns read a damaged turn")
			}
		})
	}
}

// TestFlowCommandsLeaveTurnsAlone: refresh, rebase and remove work on
// ctx/ only.
func TestFlowCommandsLeaveTurnsAlone(t *testing.T) {
	e, _ := sendEngine(t, send.Responses, sendtest.Script{})
	first, err := e.Send(context.Background(), SendOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(first.Answer)
	before := hashDir(t, dir)
	os.WriteFile(filepath.Join(e.Root, "calc", "calc.go"), []byte("package calc\n\n// Div divides, checked.\nfunc Div(a, b int) int { if b == 0 { return 0 }; return a / b }\n"), 0o644)
	for _, args := range [][]string{{"evidence", "refresh"}, {"evidence", "rebase"}, {"evidence", "remove", "100"}, {"evidence", "status"},
		{"evidence", "fit", "50"}, {"evidence", "fit", "off"}, {"assemble"}, {"flow", "show"}, {"flow", "set", "mode", "explain"}, {"flow", "list"}} {
		e.Recheck()
		exec(t, e, args...)
		if after := hashDir(t, dir); after != before {
			t.Errorf("%v changed turns/:\n%s\n---\n%s", args, before, after)
		}
	}
}

func TestFlowShowListsTurns(t *testing.T) {
	e, _ := sendEngine(t, send.Responses, sendtest.Script{Usage: &sendtest.Usage{Input: 1234, Output: 567}})
	if out := exec(t, e, "flow", "show"); !strings.Contains(out, "Turns:   none yet (`dossier send`)") {
		t.Errorf("no turns:\n%s", out)
	}
	first, err := e.Send(context.Background(), SendOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Send(context.Background(), SendOptions{FollowUp: "And then?\nsecond line"}, nil); err != nil {
		t.Fatal(err)
	}
	out := exec(t, e, "flow", "show")
	for _, want := range []string{"Turns:   2 in " + filepath.Dir(first.Answer),
		"001  ", "gpt-4o-mini  1,234 in · 567 out · $0.0005  completed  Why does Div panic on zero?\n",
		"002  ", "completed  And then?\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("flow show lacks %q:\n%s", want, out)
		}
	}
	if out := exec(t, e, "flow", "list"); !strings.Contains(out, "3 parts   2 turns  div") {
		t.Errorf("flow list:\n%s", out)
	}
	// A damaged turn is named with its fix; the rest of show still works.
	os.WriteFile(first.Answer, []byte("header gone\n"), 0o600)
	out = exec(t, e, "flow", "show")
	if !strings.Contains(out, "Turns:   ! turn file "+first.Answer+" is damaged") || !strings.Contains(out, "Tokens:") {
		t.Errorf("damaged turn:\n%s", out)
	}
}

// TestStallAfterTextIsNotACancel: a stream that stalls past the timeout
// keeps its text as an incomplete turn whose reason is the timeout, not
// the user's cancel, though the sender cancels a context inside.
func TestStallAfterTextIsNotACancel(t *testing.T) {
	e, _ := sendEngine(t, send.Responses, sendtest.Script{Chunks: []string{"So ", "far ", "never"}, Stall: true, StallAfter: 2})
	e.LLM.Timeout = 300 * time.Millisecond
	turn, err := e.Send(context.Background(), SendOptions{}, nil)
	var se *send.Error
	if !errors.As(err, &se) || se.Kind != send.ErrTimeout || Cancelled(err) {
		t.Fatalf("err %v", err)
	}
	if turn.Text != "So far " || turn.Status != "incomplete" || !strings.HasPrefix(turn.Reason, "error: timeout") {
		t.Errorf("turn %+v", turn)
	}
}

// TestOutgoingLoopback: what counts as this machine for the workbench's
// send confirmation and the CLI's "leaves this machine": loopback
// addresses and localhost by name, never a name that only resolves to one.
func TestOutgoingLoopback(t *testing.T) {
	for url, want := range map[string]bool{
		"http://localhost:11434/v1/chat/completions": true,
		"http://LOCALHOST/v1/responses":              true,
		"http://ollama.localhost/v1/responses":       false, // HTTP_PROXY would carry it
		"http://127.0.0.1:8080/v1/responses":         true,
		"http://127.1.2.3/v1/responses":              true,
		"http://[::1]:8080/v1/responses":             true,
		"https://api.openai.com/v1/responses":        false,
		"http://192.168.1.10:11434/v1/responses":     false,
		"http://localhost.example.com/v1/responses":  false,
		"http://[::ffff:10.0.0.1]/v1/responses":      false,
		"http://0.0.0.0:8080/v1/responses":           false,
	} {
		if got := (&Outgoing{Endpoint: url}).Loopback(); got != want {
			t.Errorf("Loopback(%s) = %v, want %v", url, got, want)
		}
	}
}
