package tokens

import (
	"strings"
	"testing"
)

func TestLookup(t *testing.T) {
	for _, c := range []struct {
		model, family, enc string
		window             int
	}{
		{"gpt-4o", "gpt-4o", O200kBase, 128_000},
		{"GPT-4o-2024-08-06", "gpt-4o", O200kBase, 128_000},
		{"gpt-4o-mini-2024-07-18", "gpt-4o-mini", O200kBase, 128_000},
		{"openai/gpt-4.1-mini", "gpt-4.1", O200kBase, 1_047_576},
		{"gpt-5", "gpt-5", O200kBase, 400_000},
		{"gpt-5-nano", "gpt-5", O200kBase, 400_000},
		{"gpt-5.1", "gpt-5", O200kBase, 400_000},
		{"gpt-5-chat-latest", "gpt-5-chat", O200kBase, 128_000},
		{"o1", "o1", O200kBase, 200_000},
		{"o1-mini-2024-09-12", "o1-mini", O200kBase, 128_000},
		{"o3-mini", "o3", O200kBase, 200_000},
		{"o4-mini", "o4-mini", O200kBase, 200_000},
		{"gpt-oss:20b", "gpt-oss", O200kBase, 131_072},
		{"gpt-4-turbo-2024-04-09", "gpt-4-turbo", Cl100kBase, 128_000},
		{"gpt-4-0125-preview", "gpt-4-0125-preview", Cl100kBase, 128_000},
		{"gpt-4", "gpt-4", Cl100kBase, 8_192},
		{"gpt-4-0613", "gpt-4", Cl100kBase, 8_192},
		{"gpt-4-32k", "gpt-4-32k", Cl100kBase, 32_768},
		{"gpt-3.5-turbo-0125", "gpt-3.5-turbo", Cl100kBase, 16_385},
		{"text-embedding-3-small", "text-embedding-3", Cl100kBase, 8_191},
		{"claude-sonnet-4-5", "claude", Estimate, 200_000},
		{"us.anthropic.claude-3-5-sonnet-20240620-v1:0", "claude", Estimate, 200_000},
		{"gemini-2.5-pro", "gemini", Estimate, 1_048_576},
		{"meta-llama/Llama-3.1-8B-Instruct", "llama", Estimate, 128_000},
		{"llama3.1:8b", "llama", Estimate, 128_000},
		{"Qwen2.5-Coder-32B", "qwen", Estimate, 128_000},
		{"deepseek-chat", "deepseek", Estimate, 128_000},
		{"mistral-large-latest", "mistral", Estimate, 128_000},
		{"  gpt-4o  ", "gpt-4o", O200kBase, 128_000},
	} {
		p, err := Lookup(c.model)
		if err != nil {
			t.Errorf("Lookup(%q): %v", c.model, err)
			continue
		}
		if p.Family != c.family || p.Encoding != c.enc || p.Window != c.window || p.Model != strings.TrimSpace(c.model) {
			t.Errorf("Lookup(%q) = %+v, want family %s, %s, window %d", c.model, p, c.family, c.enc, c.window)
		}
		if _, err := ForEncoding(p.Encoding); err != nil {
			t.Errorf("Lookup(%q): encoding %q has no counter", c.model, p.Encoding)
		}
	}
}

func TestLookupUnknown(t *testing.T) {
	for _, m := range []string{"", "gpt-40", "o10", "gpt-4x", "davinci", "claudette", "foo.bar"} {
		_, err := Lookup(m)
		if err == nil {
			t.Errorf("Lookup(%q) succeeded", m)
			continue
		}
		for _, family := range []string{"gpt-4o", "claude", "gemini"} {
			if !strings.Contains(err.Error(), family) {
				t.Errorf("Lookup(%q) error %q does not list %s", m, err, family)
			}
		}
	}
}

func TestDefaultBudget(t *testing.T) {
	for _, c := range []struct{ window, want int }{
		{128_000, 51_000}, {200_000, 80_000}, {8_192, 3_000}, {1_047_576, 419_000},
		{400_000, 160_000}, {16_385, 6_000}, {0, 0},
	} {
		if got := (Profile{Window: c.window}).DefaultBudget(); got != c.want {
			t.Errorf("window %d: DefaultBudget = %d, want %d", c.window, got, c.want)
		}
	}
	p, err := Lookup(DefaultModel)
	if err != nil || p.DefaultBudget() != 51_000 {
		t.Errorf("default model: %+v %v", p, err)
	}
}

func TestProfiles(t *testing.T) {
	ps := Profiles()
	if len(ps) < 20 {
		t.Fatalf("%d profiles", len(ps))
	}
	for i, p := range ps {
		if i > 0 && ps[i-1].Model >= p.Model {
			t.Errorf("not sorted: %s before %s", ps[i-1].Model, p.Model)
		}
		if p.Model != p.Family || p.Window <= 0 {
			t.Errorf("bad profile %+v", p)
		}
		got, err := Lookup(p.Model)
		if err != nil || got.Family != p.Family {
			t.Errorf("Lookup(%q) = %+v, %v: a family must find itself", p.Model, got, err)
		}
	}
}
