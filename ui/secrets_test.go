package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/cursor"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/dossierhq/dossier/index/search"
	"github.com/dossierhq/dossier/index/secrets/secrettest"
)

// secretModel is the test workbench with one more part, config/keys.go,
// holding secrettest's made-up credentials, selected; search answers with
// that file's lines 1-16 and 1-13 (the second cut inside the private key).
func secretModel(t *testing.T) (Model, string) {
	t.Helper()
	fake := func(ctx context.Context, q search.Query, _ search.Graph) (search.Response, error) {
		return search.Response{Results: []search.Result{
			{Path: "config/keys.go", StartLine: 1, EndLine: 16, Language: "go", Score: 0.9, Sources: []string{"text"}},
			{Path: "config/keys.go", StartLine: 1, EndLine: 13, Language: "go", Score: 0.8, Sources: []string{"text"}},
		}}, nil
	}
	return partModel(t, "config/keys.go", secrettest.GoFile(), "config/keys.go", fake)
}

// partModel is the test workbench with the file rel (holding text) added
// as the part sel, selected.
func partModel(t *testing.T, rel, text, sel string, fake SearchFunc) (Model, string) {
	t.Helper()
	root, e := fixture(t)
	p := filepath.Join(root, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := e.Exec(context.Background(), []string{"evidence", "add", sel}, io_discard{}); err != nil {
		t.Fatal(err)
	}
	e.Reload()
	m := New(Options{Root: root, Engine: e, Styles: testStyles(), Search: fake})
	m.cmd.input.Cursor.SetMode(cursor.CursorStatic) // as newTestModel: no blinking
	m.search.input.Cursor.SetMode(cursor.CursorStatic)
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 160, Height: 50})
	for i, r := range m.snap.Rows {
		if strings.Contains(r.Source, rel) {
			m.list.cursor = i
		}
	}
	if r, _ := m.selected(); !strings.Contains(r.Source, rel) {
		t.Fatalf("no %s part: %s", rel, rowStates(m))
	}
	return m, root
}

// TestPreviewRedactsSpansOfAKey previews parts holding only part of a
// private key (its middle lines, a byte range starting and ending inside
// it): the whole source is scanned, as the assembled prompt's redaction
// does, so the preview shows one marker per line of the key, numbered as
// in the file, and none of its text.
func TestPreviewRedactsSpansOfAKey(t *testing.T) {
	for sel, want := range map[string][]string{
		"deploy/tls.go::6,10":      {" 6" + gutterSep + "[REDACTED:private-key]", "10" + gutterSep + "[REDACTED:private-key]"},
		"deploy/tls.go::3,8":       {"3" + gutterSep + "// TLSKey is the server's key.", "4" + gutterSep + "const TLSKey = `[REDACTED:private-key]", "8" + gutterSep + "[REDACTED:private-key]"},
		"deploy/tls.go::100c,600c": {" 5" + gutterSep + "[REDACTED:private-key]", "12" + gutterSep + "[REDACTED:private-key]"},
	} {
		m, _ := partModel(t, "deploy/tls.go", secrettest.TLSGoFile(), sel, nil)
		v := m.View()
		for _, piece := range secrettest.TLSPieces() {
			if strings.Contains(v, piece) {
				t.Errorf("the preview of %s shows %q of the key:\n%s", sel, piece, v)
				break
			}
		}
		hasLines(t, "the preview of "+sel, v, want)
	}
}

// noSecret fails when text holds any line of any made-up credential.
func noSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range secrettest.All() {
		for _, line := range strings.Split(s, "\n") {
			if strings.Contains(text, line) {
				t.Errorf("%s shows %q:\n%s", what, line, text)
			}
		}
	}
}

// maskedLines are lines of the masked keys.go as the previews number them:
// the private key keeps its four lines, so the numbers after it are right.
var maskedLines = []string{
	" 4" + gutterSep + `const awsKey = "AKIA…[REDACTED:aws-access-token]"`,
	" 7" + gutterSep + `    return "ghp_…[REDACTED:github-pat]"`,
	"10" + gutterSep + `var slack = "xoxb…[REDACTED:slack-bot-token]"`,
	"12" + gutterSep + "const key = `----…[REDACTED:private-key]",
	"13" + gutterSep + "[REDACTED:private-key]",
}

// hasLines fails unless text holds each of want.
func hasLines(t *testing.T, what, text string, want []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s does not show %q:\n%s", what, w, text)
		}
	}
}

func TestPreviewsMaskSecrets(t *testing.T) {
	m, _ := secretModel(t)
	v := m.View()
	noSecret(t, "the part preview", v)
	hasLines(t, "the part preview", v, append(maskedLines, "15"+gutterSep+"[REDACTED:private-key]`"))

	m = keys(t, m, "/")
	m = typeText(t, m, "key")
	m = drive(t, m, func() tea.Msg { return searchTickMsg{m.search.seq} })
	if len(m.search.results) != 2 {
		t.Fatalf("search results: %+v", m.search.results)
	}
	v = m.View()
	noSecret(t, "the search preview", v)
	hasLines(t, "the search preview", v, maskedLines)
	// The second result ends inside the private key, where a scan of the
	// lines shown alone would not find it.
	m = send(t, m, tea.KeyMsg{Type: tea.KeyDown})
	v = m.View()
	noSecret(t, "the cut search preview", v)
	hasLines(t, "the cut search preview", v, maskedLines)
}

func TestLineSpan(t *testing.T) {
	text := "a\nbb\nccc"
	for _, tc := range []struct {
		start, end int
		want       string
	}{
		{1, 1, "a\n"}, {2, 3, "bb\nccc"}, {3, 9, "ccc"}, {1, 9, text}, {4, 5, ""}, {0, 2, ""},
	} {
		from, to := lineSpan(text, tc.start, tc.end)
		if got := text[from:to]; got != tc.want {
			t.Errorf("lineSpan(%d, %d) = %q, want %q", tc.start, tc.end, got, tc.want)
		}
	}
	if from, to := lineSpan("a\n", 2, 2); from != to {
		t.Errorf("the line after the last newline: %d-%d", from, to)
	}
}

// redacted fails unless text carries every rule's marker and no secret.
func redacted(t *testing.T, what, text string) {
	t.Helper()
	noSecret(t, what, text)
	for _, rule := range secrettest.Rules {
		if !strings.Contains(text, "[REDACTED:"+rule+"]") {
			t.Errorf("%s has no [REDACTED:%s]:\n%s", what, rule, text)
		}
	}
}

// clipboardFile is the copy the file method left in the flow's build/.
func clipboardFile(t *testing.T, m Model) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(m.snap.Dir, "build", "clipboard.txt"))
	if err != nil {
		t.Fatalf("no clipboard file: %v (status %q)", err, m.status)
	}
	return string(raw)
}

// secretWarning fails unless the workbench shows the copy's or export's
// warning in full, naming the part, the line and the rule.
func secretWarning(t *testing.T, what string, m Model) {
	t.Helper()
	v := m.View()
	for _, w := range []string{"! secret in 120_keys_go", "config/keys.go:4 (aws-access-token)", "redacted as [REDACTED:<rule-id>]"} {
		if !strings.Contains(m.output, w) || !strings.Contains(v, w) {
			t.Errorf("%s: the warning %q is not shown (status %q):\n%s", what, w, m.status, v)
		}
	}
}

func TestExitsAreRedacted(t *testing.T) {
	m, root := secretModel(t)

	// The assembled view.
	v := keys(t, m, "v")
	redacted(t, "the assembled prompt", v.snap.Text)
	noSecret(t, "the assembled view", v.View())

	// y copies through the engine's assemble --copy; without a terminal or
	// a display (as here) it lands in the file, which a terminal would
	// have taken over.
	c := keys(t, m, "y")
	if c.statusErr || !strings.Contains(c.status, "Copied") {
		t.Fatalf("y: %q", c.status)
	}
	secretWarning(t, "y", c)
	if strings.Contains(c.status, "via file") {
		redacted(t, "the copy (y)", clipboardFile(t, c))
	} else {
		t.Logf("y copied elsewhere (%s); the file method is checked below", c.status)
	}
	c = keys(t, c, "esc", ":")
	c = typeText(t, c, "assemble --copy --copy-method file")
	c = keys(t, c, "enter")
	secretWarning(t, "/assemble --copy", c)
	redacted(t, "the copy (file)", clipboardFile(t, c))

	// e opens /export; the file holds markers, not secrets.
	out := filepath.Join(root, "out.md")
	x := keys(t, m, "e")
	x = typeText(t, x, out)
	x = keys(t, x, "enter")
	if x.statusErr || !strings.Contains(x.status, "Wrote") {
		t.Fatalf("export: %q", x.status)
	}
	secretWarning(t, "export", x)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	redacted(t, "the export", string(raw))
}
