package evidence

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/dossierhq/dossier/index/history"
)

// gitStamp is the commit HEAD names in root's repository and whether
// rel's text raw differs from that commit's (or the file is not in it):
// what a part records of when it was taken. Outside a repository, or
// before its first commit, it is "" and false. One git process answers
// both (`rev-parse HEAD HEAD:./rel`); git is what every repository here
// is read with (see index/history).
func gitStamp(root, rel string, raw []byte) (commit string, dirty bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := history.Git(ctx, root, "rev-parse", "HEAD", "HEAD:./"+rel)
	if err != nil {
		// The file is not in HEAD (new, or no commit at all).
		out, err := history.Git(ctx, root, "rev-parse", "--verify", "-q", "HEAD")
		if err != nil {
			return "", false
		}
		return strings.TrimSpace(string(out)), true
	}
	lines := strings.Fields(string(out))
	if len(lines) != 2 {
		return "", false
	}
	return lines[0], lines[1] != blobID(raw, len(lines[1]))
}

// blobID is git's object id of a blob holding raw: sha1, or sha256 in a
// repository that uses it (its ids are 64 hex digits).
func blobID(raw []byte, idLen int) string {
	header := fmt.Sprintf("blob %d\x00", len(raw))
	if idLen == 64 {
		h := sha256.New()
		h.Write([]byte(header))
		h.Write(raw)
		return hex.EncodeToString(h.Sum(nil))
	}
	h := sha1.New()
	h.Write([]byte(header))
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil))
}
