package evidence

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/dossierhq/dossier/assemble"
	"github.com/dossierhq/dossier/index/history"
)

// diffSecrets are the secrets of a diff part as line pieces (see
// assemble.SourceSecret), matched by content in the diff as a span's
// source secrets are. A diff cuts its files as a span does: a hunk may
// hold the middle lines of a private key and no BEGIN line, each led by
// '+' or '-', so a scan of the diff alone misses them. Both sides of every
// file are scanned whole, under their paths (so path rules such as .env
// files apply): the blobs the diff's index lines name, read in one
// `git cat-file --batch`, and the working tree's file for a side git has
// no blob of (git:diff's). A secret in a file neither gives (one too big,
// or changed by a clean filter) is left to the scan of the diff itself,
// which sees what a hunk holds whole. The answer is kept by the diff's
// content id: the same diff names the same blobs.
func (e *Engine) diffSecrets(diff string) []assemble.SourceSecret {
	key := CID([]byte(diff))
	if s, ok := e.diffScans[key]; ok {
		return s
	}
	var out []assemble.SourceSecret
	for _, side := range e.diffFiles(diff) {
		out = appendPieces(out, lineSecrets(side.path, side.text))
	}
	if e.diffScans == nil || len(e.diffScans) > 64 {
		e.diffScans = map[string][]assemble.SourceSecret{}
	}
	e.diffScans[key] = out
	return out
}

// sideFile is one side of a file a diff shows, whole.
type sideFile struct{ path, text string }

// maxSideBytes is the largest side scanned whole; a bigger file is left to
// the scan of its hunks.
const maxSideBytes = 4 << 20

// diffFiles reads both sides of every file of a diff: the blobs its index
// lines name ("index 1a2b3c..4d5e6f"), else, for the new side, the file in
// the working tree when its content is that blob.
func (e *Engine) diffFiles(diff string) []sideFile {
	type want struct{ id, path string }
	var wants []want
	var ids []string
	var oldID, newID string
	header := func(line, prefix string) string {
		p, _, _ := strings.Cut(strings.TrimPrefix(line, prefix), "\t")
		return p
	}
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "diff "):
			oldID, newID = "", ""
		case strings.HasPrefix(line, "index "):
			f := strings.Fields(line)
			oldID, newID, _ = strings.Cut(f[1], "..")
		case strings.HasPrefix(line, "--- a/") && oldID != "":
			wants = append(wants, want{oldID, header(line, "--- a/")})
			oldID = ""
		case strings.HasPrefix(line, "+++ b/") && newID != "":
			wants = append(wants, want{newID, header(line, "+++ b/")})
			newID = ""
		}
	}
	if len(wants) == 0 {
		return nil
	}
	for _, w := range wants {
		ids = append(ids, w.id)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	raw, _ := history.GitInput(ctx, e.Root, []byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch")
	var out []sideFile
	for _, w := range wants {
		text, rest, ok := nextBlob(raw)
		raw = rest
		if !ok { // not an object: the working tree's side
			b, err := ReadRegular(filepath.Join(e.Root, filepath.FromSlash(w.path)), resolveRoots(e.Root))
			if err != nil || !strings.HasPrefix(blobID(b, 40), w.id) && !strings.HasPrefix(blobID(b, 64), w.id) {
				continue
			}
			text = b
		}
		if len(text) <= maxSideBytes && bytes.IndexByte(text, 0) < 0 {
			out = append(out, sideFile{w.path, string(text)})
		}
	}
	return out
}

// nextBlob reads one answer of `git cat-file --batch`: "<id> blob <size>",
// the content and a newline, or "<id> missing" (ok false).
func nextBlob(raw []byte) (text, rest []byte, ok bool) {
	head, rest, found := bytes.Cut(raw, []byte("\n"))
	if !found {
		return nil, nil, false
	}
	f := strings.Fields(string(head))
	if len(f) != 3 {
		return nil, rest, false
	}
	n, err := strconv.Atoi(f[2])
	if err != nil || n+1 > len(rest) {
		return nil, nil, false
	}
	return rest[:n], rest[n+1:], f[1] == "blob"
}
