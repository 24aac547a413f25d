package send

import "strings"

// Price is what a model costs in USD per million tokens.
type Price struct{ Input, Output float64 }

// prices are OpenAI's list prices (standard tier, USD per million tokens)
// as published in August 2025. Cached input is not discounted here: Cost
// is an estimate shown next to an answer, not a bill.
var prices = map[string]Price{
	"gpt-4o":       {2.50, 10.00},
	"gpt-4o-mini":  {0.15, 0.60},
	"gpt-4.1":      {2.00, 8.00},
	"gpt-4.1-mini": {0.40, 1.60},
	"gpt-4.1-nano": {0.10, 0.40},
	"o3":           {2.00, 8.00},
	"o4-mini":      {1.10, 4.40},
	"gpt-5":        {1.25, 10.00},
	"gpt-5-mini":   {0.25, 2.00},
}

// PriceOf knows a small dated table of well-known models (OpenAI's list
// prices); ok is false for any other model (local models: no cost shown).
// A dated snapshot costs what its model costs (gpt-4o-2024-08-06 is
// gpt-4o), but only a date may follow the name: gpt-4o-mini is its own
// model, and a local "gpt-4o-q4" or "llama3:gpt-4o" is not OpenAI's.
func PriceOf(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	m = strings.TrimPrefix(m, "openai/") // how routers (OpenRouter, LiteLLM) name them
	if p, ok := prices[m]; ok {
		return p, true
	}
	for name, p := range prices {
		if rest, ok := strings.CutPrefix(m, name+"-"); ok && isDate(rest) {
			return p, true
		}
	}
	return Price{}, false
}

// isDate reports whether s is a snapshot date: 2024-08-06 or 0613.
func isDate(s string) bool {
	digits := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return s != ""
	}
	if len(s) == 4 {
		return digits(s)
	}
	return len(s) == 10 && s[4] == '-' && s[7] == '-' && digits(s[:4]) && digits(s[5:7]) && digits(s[8:])
}

// Cost of a usage at a price, in USD.
func (p Price) Cost(u Usage) float64 {
	return (float64(u.Input)*p.Input + float64(u.Output)*p.Output) / 1e6
}
