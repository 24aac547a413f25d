package tokens

import (
	"fmt"
	"sort"
	"strings"
)

// DefaultModel is the model whose profile applies when none is named.
const DefaultModel = "gpt-4o"

// Profile is what dossier needs to know about a model: how to count its
// tokens and how many fit.
type Profile struct {
	// Model is the name looked up (trimmed), or the family for Profiles.
	Model string
	// Family is the entry of the profile table Model matched, e.g.
	// "gpt-4o" for "gpt-4o-2024-08-06".
	Family string
	// Encoding is the ForEncoding name: "o200k_base", "cl100k_base", or
	// "estimate" for families whose tokenizer is not public.
	Encoding string
	// Window is the context window in tokens (input and output together,
	// as the vendors publish it).
	Window int
}

// DefaultBudget is the token budget when the user sets none: about 40% of
// the window (seed 002: top-k chunks trimmed to fit ~40% of the model's
// context window), rounded down to a multiple of 1000 so it reads as a
// round number.
func (p Profile) DefaultBudget() int {
	return p.Window * 2 / 5 / 1000 * 1000
}

// families is the profile table, with the vendors' published figures as
// of 2025. A model matches the longest family that is a prefix of its name
// at a word boundary, so dated snapshots ("gpt-4o-2024-08-06") and
// size variants ("llama3.1:8b") need no entries of their own.
var families = []Profile{
	// OpenAI, o200k_base.
	{Family: "gpt-5", Encoding: O200kBase, Window: 400_000}, // gpt-5, -mini, -nano, 5.x: 272k in + 128k out
	{Family: "gpt-5-chat", Encoding: O200kBase, Window: 128_000},
	{Family: "gpt-4.1", Encoding: O200kBase, Window: 1_047_576}, // also -mini, -nano
	{Family: "gpt-4.5", Encoding: O200kBase, Window: 128_000},
	{Family: "gpt-4o", Encoding: O200kBase, Window: 128_000},
	{Family: "gpt-4o-mini", Encoding: O200kBase, Window: 128_000},
	{Family: "chatgpt-4o", Encoding: O200kBase, Window: 128_000},
	{Family: "o1", Encoding: O200kBase, Window: 200_000},
	{Family: "o1-mini", Encoding: O200kBase, Window: 128_000},
	{Family: "o1-preview", Encoding: O200kBase, Window: 128_000},
	{Family: "o3", Encoding: O200kBase, Window: 200_000}, // also o3-mini, o3-pro
	{Family: "o4-mini", Encoding: O200kBase, Window: 200_000},
	// gpt-oss uses o200k_harmony: o200k_base plus chat-format special
	// tokens, so plain text counts the same.
	{Family: "gpt-oss", Encoding: O200kBase, Window: 131_072},

	// OpenAI, cl100k_base.
	{Family: "gpt-4-turbo", Encoding: Cl100kBase, Window: 128_000},
	{Family: "gpt-4-1106-preview", Encoding: Cl100kBase, Window: 128_000},
	{Family: "gpt-4-0125-preview", Encoding: Cl100kBase, Window: 128_000},
	{Family: "gpt-4-vision-preview", Encoding: Cl100kBase, Window: 128_000},
	{Family: "gpt-4", Encoding: Cl100kBase, Window: 8_192},
	{Family: "gpt-4-32k", Encoding: Cl100kBase, Window: 32_768},
	{Family: "gpt-3.5-turbo", Encoding: Cl100kBase, Window: 16_385},
	{Family: "gpt-3.5-turbo-instruct", Encoding: Cl100kBase, Window: 4_096},
	{Family: "text-embedding-3", Encoding: Cl100kBase, Window: 8_191}, // -small, -large
	{Family: "text-embedding-ada-002", Encoding: Cl100kBase, Window: 8_191},

	// No public tokenizer: bytes/4 estimate.
	{Family: "claude", Encoding: Estimate, Window: 200_000},   // Claude 3 to 4.x; 1M is an opt-in beta
	{Family: "gemini", Encoding: Estimate, Window: 1_048_576}, // Gemini 1.5 Flash to 2.5 Pro
	{Family: "llama", Encoding: Estimate, Window: 128_000},    // Llama 3.1+ (131,072 positions)
	{Family: "mistral", Encoding: Estimate, Window: 128_000},  // Mistral Large 2, Small 3.x
	{Family: "qwen", Encoding: Estimate, Window: 128_000},     // Qwen2.5/3 with YaRN
	{Family: "deepseek", Encoding: Estimate, Window: 128_000}, // DeepSeek-V3, R1
}

// Profiles lists the profile table sorted by family, for help text.
func Profiles() []Profile {
	out := make([]Profile, len(families))
	for i, p := range families {
		p.Model = p.Family
		out[i] = p
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Family < out[j].Family })
	return out
}

// Lookup returns the profile of a model name, case-insensitively. Besides
// exact family names it accepts names that extend a family ("gpt-4o-mini-
// 2024-07-18", "claude-sonnet-4-5", "Llama-3.1-8B-Instruct") and strips
// routing prefixes ("openai/gpt-4o", "us.anthropic.claude-3-5-sonnet").
func Lookup(model string) (Profile, error) {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	for {
		if p, ok := match(name); ok {
			p.Model = strings.TrimSpace(model)
			return p, nil
		}
		// Bedrock-style vendor prefixes: "us.anthropic.", "meta.".
		i := strings.IndexByte(name, '.')
		if i <= 0 || strings.IndexFunc(name[:i], func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
			break
		}
		name = name[i+1:]
	}
	names := make([]string, 0, len(families))
	for _, p := range Profiles() {
		names = append(names, p.Family)
	}
	if strings.TrimSpace(model) == "" {
		return Profile{}, fmt.Errorf("no model named; known model families: %s", strings.Join(names, ", "))
	}
	return Profile{}, fmt.Errorf("unknown model %q; name one of these model families, or a model whose name starts with one: %s",
		model, strings.Join(names, ", "))
}

// match finds the longest family that name equals or extends at a word
// boundary: "gpt-4" covers "gpt-4-0613" but not "gpt-4o", and "llama"
// covers "llama3.1" but "o1" does not cover "o10".
func match(name string) (Profile, bool) {
	best, found := Profile{}, false
	for _, p := range families {
		f := p.Family
		if !strings.HasPrefix(name, f) || found && len(f) <= len(best.Family) {
			continue
		}
		if len(name) > len(f) {
			c := name[len(f)]
			letter := c >= 'a' && c <= 'z'
			digitAfterDigit := c >= '0' && c <= '9' && f[len(f)-1] >= '0' && f[len(f)-1] <= '9'
			if letter || digitAfterDigit {
				continue
			}
		}
		best, found = p, true
	}
	return best, found
}
