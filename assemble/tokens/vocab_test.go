package tokens

import (
	"encoding/binary"
	"flag"
	"os"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"
)

var update = flag.Bool("update", false, "rewrite the vocabulary files from tiktoken-go's codecs")

// codecRanks is a codec's vocabulary in rank order. The codec keeps its
// map private but decodes single ids, and mergeable ranks are dense from 0,
// so decoding ids until the first failure recovers all of it.
func codecRanks(c *codec.Codec) []string {
	var out []string
	id := make([]uint, 1)
	for i := uint(0); ; i++ {
		id[0] = i
		s, err := c.Decode(id)
		if err != nil || s == "" {
			return out
		}
		out = append(out, s)
	}
}

// TestVocabularyFiles checks the embedded vocabularies hold tiktoken-go's
// tokens, each with its rank, and nothing else; with -update it writes them.
func TestVocabularyFiles(t *testing.T) {
	for _, tc := range []struct {
		file  string
		data  string
		codec func() *codec.Codec
	}{
		{"o200k_base.vocab", o200kVocab, codec.NewO200kBase},
		{"cl100k_base.vocab", cl100kVocab, codec.NewCl100kBase},
	} {
		want := codecRanks(tc.codec())
		if len(want) < 100_000 {
			t.Fatalf("%s: the codec decodes %d tokens", tc.file, len(want))
		}
		if *update {
			var b []byte
			for _, tok := range want {
				b = binary.AppendUvarint(b, uint64(len(tok)))
				b = append(b, tok...)
			}
			if err := os.WriteFile(tc.file, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := ranksOf(tc.data)
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s holds %d tokens, the codec %d: run go test ./assemble/tokens -run TestVocabularyFiles -update", tc.file, len(got), len(want))
		}
		for rank, tok := range want {
			if r, ok := got[tok]; !ok || r != uint32(rank) {
				t.Fatalf("%s: token %q has rank %d (found %v), the codec's is %d", tc.file, tok, r, ok, rank)
			}
		}
	}
}

// TestDamagedVocabulary checks a cut file is an error, not a panic or a
// short vocabulary.
func TestDamagedVocabulary(t *testing.T) {
	for _, data := range []string{o200kVocab[:len(o200kVocab)-1], "\x05abc", "\xff"} {
		if _, err := ranksOf(data); err == nil {
			t.Errorf("ranksOf(%q...) read a damaged vocabulary", data[:min(len(data), 8)])
		}
	}
}
