package evidence

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dossierhq/dossier/assemble"
)

// turnsDir holds the flow's conversation: NNN.request.json (the body that
// was posted, redacted) and NNN.answer.md (a provenance comment, then the
// answer) per turn. No flow command but send writes there: refresh,
// rebase and remove work on ctx/ only.
const turnsDir = "turns"

// turnFile matches the two files of a turn: "001.request.json",
// "001.answer.md" (four digits and more after turn 999).
var turnFile = lazyRegexp(`^([0-9]{3,9})\.(request\.json|answer\.md)$`)

// turnMeta is what an answer file's header says about its turn.
type turnMeta struct {
	N            int
	Time         time.Time
	Model        string
	API          string
	ResponseID   string
	In, Out      int
	Cached       int
	Reasoning    int
	HasUsage     bool
	Seconds      float64
	Cost         float64
	HasCost      bool
	Status       string
	Reason       string
	Endpoint     string
	RetriesTaken int
}

// turnName is a turn's file name: "007.answer.md".
func turnName(n int, kind string) string { return fmt.Sprintf("%03d.%s", n, kind) }

// renderAnswer writes an answer file: the header in the flow's provenance
// style (one HTML comment, key=value; ..., values encoded as parts' are),
// a blank line, then the answer as it arrived.
func renderAnswer(m turnMeta, text string) string {
	kv := []string{"turn=" + strconv.Itoa(m.N)}
	add := func(k, v string) {
		if v != "" {
			kv = append(kv, k+"="+assemble.ProvValue(v))
		}
	}
	add("time", m.Time.UTC().Format(time.RFC3339))
	add("model", m.Model)
	add("api", m.API)
	add("endpoint", m.Endpoint)
	add("response_id", m.ResponseID)
	if m.HasUsage {
		add("tokens_in", strconv.Itoa(m.In))
		add("tokens_out", strconv.Itoa(m.Out))
		if m.Cached > 0 {
			add("tokens_cached", strconv.Itoa(m.Cached))
		}
		if m.Reasoning > 0 {
			add("tokens_reasoning", strconv.Itoa(m.Reasoning))
		}
	}
	add("seconds", strconv.FormatFloat(m.Seconds, 'f', 2, 64))
	if m.HasCost {
		add("cost_usd", strconv.FormatFloat(m.Cost, 'f', 6, 64))
	}
	if m.RetriesTaken > 0 {
		add("retries", strconv.Itoa(m.RetriesTaken))
	}
	add("status", m.Status)
	add("reason", m.Reason)
	var b strings.Builder
	b.Grow(len(text) + 256)
	b.WriteString("<!-- ")
	b.WriteString(strings.Join(kv, "; "))
	b.WriteString(" -->\n\n")
	b.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
	return b.String()
}

// parseAnswer reads an answer file back. It needs the header line
// (`<!-- turn=N ... -->`, which may be cut down to just that); the text
// is everything after it, hand edits included. Its error says what is
// wrong; the caller names the file and the fix.
func parseAnswer(raw string) (turnMeta, string, error) {
	var m turnMeta
	line, rest, _ := strings.Cut(raw, "\n")
	line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
	if !strings.HasPrefix(line, "<!--") || !strings.Contains(line, "turn=") {
		return m, "", fmt.Errorf("it does not start with its turn header (<!-- turn=N; ... -->)")
	}
	if !strings.HasSuffix(line, "-->") {
		return m, "", fmt.Errorf("its turn header (the first line) does not end with -->")
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(line, "<!--"), "-->")
	for _, field := range strings.Split(inner, ";") {
		k, raw, ok := strings.Cut(strings.TrimSpace(field), "=")
		if !ok {
			if strings.TrimSpace(field) == "" {
				continue
			}
			return m, "", fmt.Errorf("its turn header holds %q, not key=value", strings.TrimSpace(field))
		}
		v := assemble.ParseProvValue(strings.TrimSpace(raw))
		if err := m.set(k, v); err != nil {
			return m, "", fmt.Errorf("its turn header's %s: %w", k, err)
		}
	}
	if m.N <= 0 {
		return m, "", fmt.Errorf("its turn header has no turn number (turn=N)")
	}
	text := strings.TrimPrefix(strings.TrimPrefix(rest, "\r\n"), "\n")
	return m, text, nil
}

// set reads one header field; unknown keys are kept out of the way (a
// later dossier may add some).
func (m *turnMeta) set(k, v string) (err error) {
	num := func(dst *int) {
		*dst, err = strconv.Atoi(v)
		if err == nil && *dst < 0 {
			err = fmt.Errorf("%d is negative", *dst)
		}
	}
	switch k {
	case "turn":
		num(&m.N)
	case "time":
		m.Time, err = time.Parse(time.RFC3339, v)
	case "model":
		m.Model = v
	case "api":
		m.API = v
	case "endpoint":
		m.Endpoint = v
	case "response_id":
		m.ResponseID = v
	case "tokens_in":
		m.HasUsage = true
		num(&m.In)
	case "tokens_out":
		m.HasUsage = true
		num(&m.Out)
	case "tokens_cached":
		num(&m.Cached)
	case "tokens_reasoning":
		num(&m.Reasoning)
	case "seconds":
		m.Seconds, err = strconv.ParseFloat(v, 64)
	case "cost_usd":
		m.HasCost = true
		m.Cost, err = strconv.ParseFloat(v, 64)
	case "retries":
		num(&m.RetriesTaken)
	case "status":
		m.Status = v
	case "reason":
		m.Reason = v
	}
	if err != nil {
		return fmt.Errorf("%q is not a valid value", v)
	}
	return nil
}

// instructionOf finds, in a posted request body of either API, the first
// text item of the last user message: the turn's [MODE]+[INSTRUCTION].
// A body carries the whole [CONTEXT] (megabytes on a large flow), so the
// message contents are read only up to their first text item.
func instructionOf(body []byte) (string, error) {
	var doc struct {
		Input    []bodyMessage `json:"input"`
		Messages []bodyMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", fmt.Errorf("it is not a JSON request body (%v)", err)
	}
	msgs := doc.Input
	if msgs == nil {
		msgs = doc.Messages
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == "user" {
			if !m.Content.found {
				return "", fmt.Errorf("its last user message has no text item")
			}
			return m.Content.first, nil
		}
	}
	return "", fmt.Errorf("it holds no user message (\"input\" or \"messages\")")
}

// bodyMessage is one message of a posted body.
type bodyMessage struct {
	Role    string      `json:"role"`
	Content bodyContent `json:"content"`
}

// bodyContent is a message's content, a string or a list of items, read
// only as far as its first text.
type bodyContent struct {
	first string
	found bool
}

func (c *bodyContent) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if s, ok := tok.(string); ok {
		c.first, c.found = s, true
		return nil
	}
	if tok != json.Delim('[') {
		return nil // null or another shape: no text
	}
	for dec.More() {
		var it struct {
			Text *string `json:"text"`
		}
		if err := dec.Decode(&it); err != nil {
			return err
		}
		if it.Text != nil {
			c.first, c.found = *it.Text, true
			return nil // the rest (the context) is not needed
		}
	}
	return nil
}

// requestText is the part of an instruction a person wrote: without the
// [MODE: ...] and [INSTRUCTION] lines.
func requestText(instr string) string {
	s := strings.TrimLeft(instr, "\r\n")
	if strings.HasPrefix(s, "[MODE:") {
		_, s, _ = strings.Cut(s, "\n")
	}
	s = strings.TrimLeft(s, "\r\n")
	if rest, ok := strings.CutPrefix(s, "[INSTRUCTION]"); ok {
		s = rest
	}
	return strings.TrimSpace(s)
}
