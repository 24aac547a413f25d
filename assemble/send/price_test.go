package send

import (
	"encoding/json"
	"testing"
)

func TestPriceOf(t *testing.T) {
	for _, tc := range []struct {
		model string
		want  Price
		ok    bool
	}{
		{"gpt-4o", Price{2.50, 10}, true},
		{"gpt-4o-2024-08-06", Price{2.50, 10}, true},
		{"gpt-4o-mini", Price{0.15, 0.60}, true},
		{"gpt-4o-mini-2024-07-18", Price{0.15, 0.60}, true},
		{"GPT-4.1-nano", Price{0.10, 0.40}, true},
		{"openai/gpt-5-mini", Price{0.25, 2}, true},
		{"o3-2025-04-16", Price{2, 8}, true},
		{"gpt-5-nano", Price{}, false},
		{"gpt-4o-q4", Price{}, false},
		{"llama3.1:8b", Price{}, false},
		{"qwen2.5-coder:7b-gpt-4o", Price{}, false},
		{"", Price{}, false},
	} {
		got, ok := PriceOf(tc.model)
		if got != tc.want || ok != tc.ok {
			t.Errorf("PriceOf(%q) = %v, %v; want %v, %v", tc.model, got, ok, tc.want, tc.ok)
		}
	}
	p, _ := PriceOf("gpt-4.1")
	if c := p.Cost(Usage{Input: 1_000_000, Output: 500_000}); c != 6 {
		t.Errorf("cost = %v, want 6", c)
	}
}

// FuzzUnescapeHTML: whatever the text, the readable body decodes to it.
func FuzzUnescapeHTML(f *testing.F) {
	for _, s := range []string{"a < b && c > d", `\u003c`, `\\u003c`, "\\", "<\"&\">", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, _ := json.Marshal(s)
		var got, want string
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(unescapeHTML(b), &got); err != nil || got != want {
			t.Fatalf("%q: %q, %v", s, got, err)
		}
	})
}
