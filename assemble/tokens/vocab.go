package tokens

import (
	_ "embed"
	"encoding/binary"
	"fmt"
)

// The vocabularies are tiktoken's mergeable ranks, written from
// github.com/tiktoken-go/tokenizer's codecs (TestVocabularyFiles checks
// every token against them; `go test ./assemble/tokens -run
// TestVocabularyFiles -update` rewrites the files after an upgrade). Each
// file holds the tokens in rank order, ranks dense from 0, each as a
// uvarint length and its bytes. Linking the codec package instead would
// run regexp2's and the codec's package init in every dossier process, and
// its vocabularies are Go map literals of ~8 MB of code and tables.
var (
	//go:embed o200k_base.vocab
	o200kVocab string
	//go:embed cl100k_base.vocab
	cl100kVocab string
)

// ranksOf decodes a vocabulary file into token bytes -> rank. The keys
// alias data, which is never freed.
func ranksOf(data string) (map[string]uint32, error) {
	ranks := make(map[string]uint32, 200_000)
	for i := 0; i < len(data); {
		n, w := binary.Uvarint([]byte(data[i:min(len(data), i+binary.MaxVarintLen64)]))
		if w <= 0 || uint64(len(data)-i-w) < n {
			return nil, fmt.Errorf("vocabulary damaged at byte %d, token %d", i, len(ranks))
		}
		i += w
		ranks[data[i:i+int(n)]] = uint32(len(ranks))
		i += int(n)
	}
	return ranks, nil
}
