package tokens

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// reference is testdata/reference.json, written by gen-reference.mjs with
// OpenAI's tiktoken.
type reference struct {
	Generator string `json:"generator"`
	Files     map[string]struct {
		Bytes  int              `json:"bytes"`
		O200k  int              `json:"o200k_base"`
		Cl100k int              `json:"cl100k_base"`
		IDs    map[string][]int `json:"ids"`
	} `json:"files"`
	Strings []struct {
		Text   string `json:"text"`
		O200k  []int  `json:"o200k_base"`
		Cl100k []int  `json:"cl100k_base"`
	} `json:"strings"`
}

func loadReference(t testing.TB) *reference {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "reference.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatalf("reference.json: %v", err)
	}
	return &ref
}

// corpus returns the reference corpus, file name -> content.
func corpus(t testing.TB) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "corpus", "*"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	out := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = string(data)
	}
	return out
}

func exactCounters() []*bpeCounter { return []*bpeCounter{o200k, cl100k} }

func TestCountMatchesReferenceCorpus(t *testing.T) {
	ref := loadReference(t)
	files := corpus(t)
	if len(ref.Files) != len(files) {
		t.Errorf("reference has %d files, corpus %d: regenerate reference.json", len(ref.Files), len(files))
	}
	for name, want := range ref.Files {
		text, ok := files[name]
		if !ok {
			t.Errorf("%s: in reference.json but not in corpus", name)
			continue
		}
		if len(text) != want.Bytes {
			t.Errorf("%s: %d bytes, reference counted %d: regenerate reference.json", name, len(text), want.Bytes)
			continue
		}
		for _, c := range exactCounters() {
			wantN := want.O200k
			if c.name == Cl100kBase {
				wantN = want.Cl100k
			}
			if got := c.Count(text); got != wantN {
				t.Errorf("%s %s: Count = %d, reference %d", name, c.name, got, wantN)
			}
			if ids, ok := want.IDs[c.name]; ok {
				checkIDs(t, name, c, text, ids)
			}
		}
	}
}

func TestCountMatchesReferenceStrings(t *testing.T) {
	ref := loadReference(t)
	if len(ref.Strings) < 100 {
		t.Fatalf("reference.json has %d random strings, want hundreds", len(ref.Strings))
	}
	for i, s := range ref.Strings {
		checkIDs(t, "string "+itoa(i), o200k, s.Text, s.O200k)
		checkIDs(t, "string "+itoa(i), cl100k, s.Text, s.Cl100k)
		if got := o200k.Count(s.Text); got != len(s.O200k) {
			t.Errorf("string %d %q: o200k Count = %d, reference %d", i, s.Text, got, len(s.O200k))
		}
		if got := cl100k.Count(s.Text); got != len(s.Cl100k) {
			t.Errorf("string %d %q: cl100k Count = %d, reference %d", i, s.Text, got, len(s.Cl100k))
		}
	}
}

func checkIDs(t *testing.T, name string, c *bpeCounter, text string, want []int) {
	t.Helper()
	got := c.encode(text)
	if slices.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	t.Errorf("%s %s: ids differ at token %d of %d (reference %d)\n got %v\nwant %v\npieces %q",
		name, c.name, i, len(got), len(want), tail(got, i), tail(want, i), c.pieces(text))
}

func tail(ids []int, i int) []int {
	if i > len(ids) {
		i = len(ids)
	}
	return ids[i:min(len(ids), i+8)]
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
