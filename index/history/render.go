package history

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/dossierhq/dossier/store/fsafe"
)

// File is the history file of a source path, relative to the root: the
// path with ".md" added. A file name too long to take those 3 bytes (253
// of the 255 a name can have) is named after its path's SHA-256 instead,
// in a directory no source path has a history file in (.dossier); its
// content names the path (see SourceOf).
func File(src string) string {
	if len(path.Base(src))+len(".md") > maxName {
		sum := sha256.Sum256([]byte(src))
		return longDir + hex.EncodeToString(sum[:]) + ".md"
	}
	return Dir + "/" + src + ".md"
}

// maxName is the longest file name most file systems take, in bytes.
const maxName = 255

// longDir holds the history files of paths with long names (see File).
const longDir = Dir + "/.dossier/"

// Source is the source path a history file (relative to the root) tells
// the history of, when its name says it (see SourceOf).
func Source(rel string) (string, bool) {
	if strings.HasPrefix(rel, longDir) {
		return "", false
	}
	s, ok := strings.CutPrefix(rel, Dir+"/")
	if !ok {
		return "", false
	}
	s, ok = strings.CutSuffix(s, ".md")
	return s, ok && s != "" && !strings.HasSuffix(s, "/")
}

// SourceOf is the source path of a history file, rel, whose content is
// text: from its name, or for a long name from the path its sections
// name, checked against the hash the file is named after.
func SourceOf(rel string, text []byte) (string, bool) {
	if !strings.HasPrefix(rel, longDir) {
		return Source(rel)
	}
	for line := range strings.Lines(string(text)) {
		rest, ok := strings.CutPrefix(line, "- file: ")
		if !ok {
			continue
		}
		// "- file: PATH (action)": the path may hold " (" itself.
		for i := strings.Index(rest, " ("); i >= 0; {
			if src := rest[:i]; File(src) == rel {
				return src, true
			}
			j := strings.Index(rest[i+1:], " (")
			if j < 0 {
				break
			}
			i += 1 + j
		}
		break
	}
	return "", false
}

// render writes the history file of every changed path (of every path
// when all) and removes those of paths without history. What history
// files there are depends on git alone, never on the files on disk (the
// indexer decides which it reads): a file away while its history was
// read has it once it is back, as after a fresh read. A file that cannot
// be written or removed is left for the next sync (failed, with why),
// never a reason to stop. The files are written unsynced and synced at
// once at the end (fsafe.SyncFiles), before Sync saves the state and the
// mark that vouch for them. It returns the files written and removed.
func render(root, dir string, s *state, changed map[string]bool, all bool) (written, removed int, failed map[string]error, err error) {
	paths := changed
	if all {
		paths = map[string]bool{}
		for p := range s.Files {
			paths[p] = true
		}
	}
	var unsynced []string
	fail := func(p string, err error) {
		if failed == nil {
			failed = map[string]error{}
		}
		failed[p] = err
	}
	for p := range paths {
		dst := filepath.Join(root, filepath.FromSlash(File(p)))
		list := s.Files[p]
		if len(list) == 0 || !nameable(p) {
			if len(list) == 0 {
				delete(s.Files, p)
			}
			if err := os.Remove(dst); err == nil {
				removed++
			} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrInvalid) && !errors.Is(err, syscall.ENOTDIR) {
				fail(p, fmt.Errorf("history: remove %s: %w", dst, err))
			}
			continue
		}
		wrote, err := writeFile(dst, []byte(renderFile(p, list, s.Commits)), false)
		if err != nil {
			fail(p, err)
			continue
		}
		written++
		if wrote {
			unsynced = append(unsynced, dst)
		}
	}
	// Synced all at once, before the state and the mark that name them.
	if err := fsafe.SyncFiles(dir, unsynced); err != nil {
		return written, removed, failed, fmt.Errorf("history: %w", err)
	}
	if !all {
		return written, removed, failed, nil
	}
	// Files of paths the new state does not hold (a rewritten history,
	// files deleted while history was read again).
	keep := make(map[string]bool, len(s.Files))
	for p := range s.Files {
		keep[File(p)] = true
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		if rel, err := filepath.Rel(root, p); err == nil && !keep[filepath.ToSlash(rel)] && os.Remove(p) == nil {
			removed++
		}
		return nil
	})
	return written, removed, failed, err
}

// nameable reports whether a history file can be named after src: no
// control character (no file name of ours carries a newline), inside
// the workspace, and none of dossier's or git's own files.
func nameable(src string) bool {
	for _, r := range src {
		if unicode.IsControl(r) {
			return false
		}
	}
	return !strings.HasPrefix(src, ".dossier/") && !strings.HasPrefix(src, ".git/") && !path.IsAbs(src) && !strings.Contains("/"+src+"/", "/../")
}

// renderFile writes a path's history: one H2 section per commit, newest
// first, so each (file, commit) becomes one chunk.
func renderFile(src string, list []change, commits map[string]commitRef) string {
	var b strings.Builder
	for i, ch := range list {
		c := commits[ch.Hash]
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "## %s %s\n\n", short(ch.Hash), oneLine(c.Subject))
		fmt.Fprintf(&b, "- file: %s (%s)\n", src, action(ch))
		fmt.Fprintf(&b, "- commit: %s\n", ch.Hash)
		fmt.Fprintf(&b, "- author: %s\n", oneLine(c.Author))
		fmt.Fprintf(&b, "- date: %s\n", c.Date)
		if len(ch.Symbols) > 0 {
			fmt.Fprintf(&b, "- changed: %s\n", strings.Join(ch.Symbols, ", "))
		}
		if body := escapeBody(c.Body); body != "" {
			b.WriteString("\n")
			b.WriteString(body)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func short(h string) string { return h[:min(len(h), 10)] }

func action(ch change) string {
	switch ch.Status {
	case "A":
		return "added"
	case "R":
		return "renamed from " + ch.From
	case "C":
		return "copied from " + ch.From
	case "T":
		return "type changed"
	}
	return "modified"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// maxBody caps a commit message's body in a history file: a squashed
// pull request's list of commits repeated for every file it touched cost
// more index than it gave answers.
const maxBody = 1500

// escapeBody keeps a commit message from making headings or fences of
// its own in the history file: those lines get a backslash, as Markdown
// escapes them.
func escapeBody(body string) string {
	if len(body) > maxBody {
		cut := strings.LastIndexByte(body[:maxBody], '\n')
		if cut < maxBody/2 {
			cut = maxBody
		}
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		body = body[:cut] + "\n[…]"
	}
	var b strings.Builder
	for line := range strings.Lines(strings.TrimSpace(body)) {
		trim := strings.TrimLeft(line, " ")
		if len(line)-len(trim) <= 3 && (strings.HasPrefix(trim, "#") || strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~")) {
			b.WriteString("\\")
		}
		b.WriteString(strings.TrimRight(line, "\r"))
	}
	return strings.TrimSpace(b.String())
}
