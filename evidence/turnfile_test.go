package evidence

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/dossierhq/dossier/assemble/send"
)

func TestAnswerFileRoundTrip(t *testing.T) {
	m := turnMeta{N: 12, Time: time.Date(2026, 11, 24, 4, 5, 6, 0, time.UTC), Model: "gpt-4o; -->x", API: "responses",
		Endpoint: "http://127.0.0.1:1/v1/responses", ResponseID: "resp_1", In: 1234, Out: 567, Cached: 3, HasUsage: true,
		Seconds: 3.25, Cost: 0.0041, HasCost: true, Status: "incomplete", Reason: "cancelled", RetriesTaken: 1}
	text := "# Answer\n\n<!-- a comment of the model's -->\nline\n"
	raw := renderAnswer(m, text)
	if !strings.HasPrefix(raw, "<!-- turn=12; time=2026-11-24T04:05:06Z; model=gpt-4o%3B --%3Ex; api=responses;") {
		t.Errorf("header: %q", raw)
	}
	got, gotText, err := parseAnswer(raw)
	if err != nil || got != m || gotText != text {
		t.Errorf("parseAnswer = %+v %q %v\nwant %+v %q", got, gotText, err, m, text)
	}
	// Cut down to the number, the header still reads.
	if got, txt, err := parseAnswer("<!-- turn=3 -->\nhand written\n"); err != nil || got.N != 3 || txt != "hand written\n" || got.HasUsage {
		t.Errorf("minimal header: %+v %q %v", got, txt, err)
	}
}

func TestDamagedAnswerFiles(t *testing.T) {
	for raw, want := range map[string]string{
		"just an answer\n":                          "does not start with its turn header",
		"":                                          "does not start with its turn header",
		"<!-- turn=1; model=x\nrest -->\n":          "does not end with -->",
		"<!-- turn=x -->\n":                         "turn:",
		"<!-- turn=-4 -->\n":                        "not a valid value",
		"<!-- turn=1; tokens_in=many -->\n":         `"many" is not a valid value`,
		"<!-- turn=1; time=yesterday -->\n":         "time",
		"<!-- model=m; turn= -->\n":                 "turn",
		"<!-- turn=1; what -->\n":                   "not key=value",
		"<!-- a comment that says turn=1 but -->\n": "no turn number",
	} {
		if _, _, err := parseAnswer(raw); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", raw, err, want)
		}
	}
}

func TestInstructionOf(t *testing.T) {
	for body, want := range map[string]string{
		`{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"one"}]},{"role":"assistant","content":"a"},{"role":"user","content":[{"type":"input_text","text":"[MODE: fix]\n[INSTRUCTION]\ntwo"},{"type":"input_text","text":"[CONTEXT]"}]}]}`: "[MODE: fix]\n[INSTRUCTION]\ntwo",
		`{"model":"m","messages":[{"role":"system","content":"s"},{"role":"user","content":"plain"}]}`: "plain",
		`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"parts"}]}]}`:        "parts",
	} {
		if got, err := instructionOf([]byte(body)); err != nil || got != want {
			t.Errorf("%s: %q %v", body, got, err)
		}
	}
	for body, want := range map[string]string{`{"model":`: "not a JSON request body", `{"input":[]}`: "no user message", `{"input":[{"role":"user","content":[{"type":"image"}]}]}`: "no text item"} {
		if _, err := instructionOf([]byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
	if got := requestText("[MODE: fix]\n[INSTRUCTION]\nWhy does it fail?\n"); got != "Why does it fail?" {
		t.Errorf("requestText = %q", got)
	}
}

func FuzzParseAnswer(f *testing.F) {
	f.Add(renderAnswer(turnMeta{N: 1, Model: "m", HasUsage: true, In: 1, Out: 2, Status: "completed"}, "text"))
	f.Add("<!-- turn=3 -->\n")
	f.Add("<!-- turn=1; reason=%3B%3C -->\n\nx")
	f.Fuzz(func(t *testing.T, raw string) {
		m, text, err := parseAnswer(raw)
		if err != nil {
			return
		}
		// What reads back renders to something that reads back the same.
		m2, text2, err := parseAnswer(renderAnswer(m, text))
		if err != nil || m2.N != m.N || m2.Status != m.Status || m2.Reason != m.Reason || m2.Model != m.Model {
			t.Errorf("round trip of %q: %+v %v, want %+v", raw, m2, err, m)
		}
		if text != "" && strings.TrimSuffix(text2, "\n") != strings.TrimSuffix(text, "\n") {
			t.Errorf("text %q came back %q", text, text2)
		}
	})
}

// FuzzInstructionOf: any request.json a hand may leave gives an
// instruction or an error, never a panic, and a body Body wrote gives back
// its instruction.
func FuzzInstructionOf(f *testing.F) {
	f.Add([]byte(`{"input":[{"role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]}]}`), "x")
	f.Add([]byte(`{"messages":[{"role":"user","content":"plain"}]}`), "[MODE: fix]\n")
	f.Add([]byte(`{"messages":[{"role":"user","content":null}]}`), "")
	f.Fuzz(func(t *testing.T, body []byte, instr string) {
		_, _ = instructionOf(body)
		if !utf8.ValidString(instr) {
			return // the exit gate made it valid before it reached a body
		}
		instr = "[MODE: ask]\n[INSTRUCTION]\n" + instr // never empty: go-openai leaves an empty chat text out
		for _, api := range []send.API{send.Responses, send.Chat} {
			b, err := send.Body(send.Config{BaseURL: "http://h/v1", Model: "m", API: api}, send.Request{Instruction: instr, Context: "ctx",
				History: []send.Turn{{Instruction: "old", Answer: "ans"}}})
			if err != nil {
				continue
			}
			if got, err := instructionOf(b); err != nil || got != instr {
				t.Errorf("%s: %q came back %q %v", api, instr, got, err)
			}
		}
	})
}
