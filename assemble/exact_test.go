package assemble

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dossierhq/dossier/assemble/tokens"
)

// corpus is the tokenizer's reference corpus: varied code, prose, unicode,
// odd whitespace. Parts built from it stress every boundary.
func corpus(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("tokens", "testdata", "corpus", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus in tokens/testdata/corpus: %v", err)
	}
	var out []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(raw))
	}
	return out
}

// randomFlow builds a flow of n parts whose bodies are slices of texts.
func randomFlow(rng *rand.Rand, texts []string, n int) *Flow {
	f := &Flow{ID: "exact-20260101T000000", Mode: "fix"}
	langs := []string{"go", "python", "markdown", "", "typescript"}
	for i := 0; i < n; i++ {
		t := texts[rng.Intn(len(texts))]
		a := runeStart(t, rng.Intn(len(t)+1))
		b := runeStart(t, a+rng.Intn(len(t)-a+1))
		body := t[a:b] // whole runes: JSON would replace a split one
		role := Evidence
		switch {
		case i == 0:
			role = System
		case i == 1 || i == 2:
			role = User
		}
		p := Part{Rank: fmt.Sprintf("%03d", i*3), Kind: fmt.Sprintf("k%d", i), Role: role, CID: fmt.Sprintf("sha256:%d", i), Bytes: len(body), Status: Active}
		p.File = "ctx/" + p.Rank + "_" + p.Kind + "." + string(role) + ".md"
		if rng.Intn(5) == 0 {
			p.Status = Skipped
		}
		if role == Evidence {
			p.Heading = "src/f" + p.Kind
			p.Source = Source{Path: p.Heading, URI: "file://" + p.Heading, Span: "lines=1:9", StartLine: 1, EndLine: 9, Language: langs[rng.Intn(len(langs))]}
			if rng.Intn(3) > 0 {
				p.Code = body
				p.Body = Fence(body) + p.Source.Language + "\n" + body + "\n" + Fence(body)
			} else {
				p.Body = body
			}
			switch rng.Intn(6) {
			case 0:
				p.Detail, p.OutlineText = Outline, body[:len(body)/2]
			case 1:
				p.Detail = PathOnly
			}
		} else {
			p.Body = body
		}
		f.Parts = append(f.Parts, p)
	}
	return f
}

func runeStart(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// TestTotalsAreExact checks the assembler's incremental total, made of
// memoized block counts, against counting the whole output at once, for
// both encodings and every segment-based format.
func TestTotalsAreExact(t *testing.T) {
	texts := corpus(t)
	for _, enc := range []string{tokens.O200kBase, tokens.Cl100kBase} {
		c, err := tokens.ForEncoding(enc)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewSource(1))
		a := NewAssembler(c, nil)
		for round := 0; round < 40; round++ {
			f := randomFlow(rng, texts, 2+rng.Intn(12))
			for _, format := range []Format{MDCtx, Aptix} {
				res := a.Assemble(f, format)
				if want := c.Count(res.Text); res.Tokens != want {
					t.Fatalf("%s %s round %d: total %d, counting the whole text gives %d", enc, format, round, res.Tokens, want)
				}
			}
			if !utf8.ValidString(a.Assemble(f, MDCtx).Text + instruction(f) + systemText(f)) {
				continue // JSON carries only valid UTF-8; its U+FFFD would count differently
			}
			res := a.Assemble(f, Responses)
			var doc struct {
				Instructions string `json:"instructions"`
				Input        []struct {
					Content []struct{ Text string } `json:"content"`
				} `json:"input"`
			}
			if err := json.Unmarshal([]byte(res.Text), &doc); err != nil {
				t.Fatalf("responses is not JSON: %v\n%s", err, res.Text)
			}
			want := c.Count(doc.Input[0].Content[0].Text) + c.Count(doc.Input[0].Content[1].Text)
			if doc.Instructions != "" {
				want += c.Count(doc.Instructions)
			}
			if res.Tokens != want {
				t.Fatalf("%s responses round %d: total %d, want %d", enc, round, res.Tokens, want)
			}
			if aptix := a.Assemble(f, Aptix); doc.Input[0].Content[1].Text != aptix.Text {
				t.Fatalf("responses context differs from the aptix block")
			}
		}
	}
}

// TestToggleReassembly checks that re-assembly after a toggle gives the
// same output and count as a fresh assembler.
func TestToggleReassembly(t *testing.T) {
	c, _ := tokens.ForEncoding(tokens.O200kBase)
	rng := rand.New(rand.NewSource(2))
	f := randomFlow(rng, corpus(t), 30)
	live := NewAssembler(c, nil)
	live.Assemble(f, MDCtx)
	for i := 3; i < 30; i += 4 {
		if f.Parts[i].Status == Active {
			f.Parts[i].Status = Skipped
		} else {
			f.Parts[i].Status = Active
		}
		got := live.Assemble(f, MDCtx)
		want := NewAssembler(c, nil).Assemble(f, MDCtx)
		if got.Text != want.Text || got.Tokens != want.Tokens {
			t.Fatalf("toggle %d: live assembler gives %d tokens, fresh %d (texts equal: %v)", i, got.Tokens, want.Tokens, got.Text == want.Text)
		}
	}
}

// TestFenceSurvivesFences checks that content holding its own fences stays
// intact inside a longer fence.
func TestFenceSurvivesFences(t *testing.T) {
	code := "Example:\n```go\nx := 1\n```\nand ````four````\n"
	p := Part{Rank: "100", Kind: "doc", Role: Evidence, File: "ctx/evidence/100_doc.evidence.md", Status: Active,
		Code: code, Source: Source{Path: "doc.md", StartLine: 1, EndLine: 5, Language: "markdown"}}
	got := aptixBlock(&p)
	want := "Id: doc.md::1,5\nPath: doc.md\nLines: 1-5\nLanguage: markdown\n`````markdown\n" + code + "`````\n\n"
	if got != want {
		t.Errorf("aptix block:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(got, code) {
		t.Error("content changed")
	}
}

// TestHandEditedPartKeepsLanguage: a part edited past its one fenced block
// is fenced as markdown, but its Language stays its source's, as its
// Lines do.
func TestHandEditedPartKeepsLanguage(t *testing.T) {
	body := "```go\nfunc A() int {\n\treturn 2\n}\n```\nNote: check this."
	p := Part{Rank: "100", Kind: "a_go_3_5", Role: Evidence, File: "ctx/evidence/100_a_go_3_5.evidence.md", Status: Active,
		Body: body, Source: Source{Path: "a.go", StartLine: 3, EndLine: 5, Span: "lines=3:5", Language: "go"}}
	got := aptixBlock(&p)
	want := "Id: a.go::3,5\nPath: a.go\nLines: 3-5\nLanguage: go\n````markdown\n" + body + "\n````\n\n"
	if got != want {
		t.Errorf("aptix block:\n%s\nwant\n%s", got, want)
	}
}
