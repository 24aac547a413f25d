package index

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/dossierhq/dossier/index/discover"
	"github.com/dossierhq/dossier/index/history"
	"github.com/dossierhq/dossier/index/lang"
	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/fsafe"
)

// The index reads two kinds of files under .dossier, which discovery and
// the watcher otherwise leave alone: the history files index/history keeps
// (source type file_change) and the answers `dossier send` keeps in each
// flow's turns/ (source type run_summary).

// flowsDir holds the flows, relative to the root.
const flowsDir = store.DirName + "/flows"

// answerFile matches a kept answer's name, as evidence writes it
// (`^[0-9]{3,9}\.answer\.md$`, without a regexp compiled at every
// process's start).
var answerFile = answerName{}

type answerName struct{}

func (answerName) MatchString(name string) bool {
	digits, ok := strings.CutSuffix(name, ".answer.md")
	if !ok || len(digits) < 3 || len(digits) > 9 {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

// syncHistory brings the history files up to date with HEAD before the
// walk, so the walk indexes them with everything else. Git missing, no
// commit, a repository git cannot read: a note, never a failed run.
func (ix *Indexer) syncHistory(ctx context.Context, sum *Summary) {
	res, err := history.Sync(ctx, ix.historyOptions(ix.repo))
	ix.history = res
	sum.HistoryMark = res.Mark
	if err != nil {
		if ctx.Err() == nil {
			sum.Errors = append(sum.Errors, err.Error())
		}
		return
	}
	if res.Read > 0 {
		sum.Notes["history_commits_read"] = res.Read
	}
	if res.NoteKey != "" {
		sum.Notes[res.NoteKey] = 1
		if ix.opts.Notice != nil && res.NoteKey != "history_no_commits" {
			ix.opts.Notice(res.Note)
		}
	}
}

// historyOptions are the history settings of the index at repo's HEAD.
func (ix *Indexer) historyOptions(repo store.Repo) history.Options {
	return history.Options{Root: ix.root, Head: repo.Commit, Depth: ix.opts.HistoryDepth, Window: ix.opts.HistoryCommits,
		MaxFileSize: cmp.Or(ix.opts.MaxFileSize, discover.DefaultMaxFileSize)}
}

// answersMark names the kept answers of every flow as found now (path,
// size, modification time), "" when run summaries are off: a run keeps
// the one it found before its walk, and a quick run that finds another
// leaves the work to a full run.
func (ix *Indexer) answersMark() string {
	if !ix.opts.RunSummaries {
		return ""
	}
	h := sha256.New()
	flows, _ := os.ReadDir(filepath.Join(ix.root, filepath.FromSlash(flowsDir)))
	for _, f := range flows {
		if !f.IsDir() {
			continue
		}
		turns := path.Join(flowsDir, f.Name(), "turns")
		entries, _ := os.ReadDir(filepath.Join(ix.root, filepath.FromSlash(turns)))
		for _, e := range entries {
			if !e.Type().IsRegular() || !answerFile.MatchString(e.Name()) {
				continue
			}
			if st, err := e.Info(); err == nil {
				fmt.Fprintf(h, "%s/%s\x00%d\x00%d\n", turns, e.Name(), st.Size(), st.ModTime().UnixNano())
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// walkDossier offers the walk's callback the history files of the files
// the walk found and the kept answers of every flow. Called after the
// walk, so seen holds the workspace's files and read those the run
// reads (new or changed). See walkHistory.
func (ix *Indexer) walkDossier(ctx context.Context, old map[string]store.File, seen, read map[string]bool, visit func(discover.Candidate) error) error {
	if ix.historyDone != nil {
		<-ix.historyDone // history and its files are the sync's until then
	}
	if err := ix.walkHistory(ctx, old, seen, read, visit); err != nil {
		return err
	}
	if !ix.opts.RunSummaries {
		return nil
	}
	flows, _ := os.ReadDir(filepath.Join(ix.root, filepath.FromSlash(flowsDir)))
	for _, f := range flows {
		if !f.IsDir() {
			continue
		}
		turns := path.Join(flowsDir, f.Name(), "turns")
		entries, _ := os.ReadDir(filepath.Join(ix.root, filepath.FromSlash(turns)))
		for _, e := range entries {
			if !e.Type().IsRegular() || !answerFile.MatchString(e.Name()) {
				continue
			}
			rel := path.Join(turns, e.Name())
			if err := offer(filepath.Join(ix.root, filepath.FromSlash(rel)), rel, visit); err != nil {
				return err
			}
		}
	}
	return nil
}

// walkHistory offers the history files the index holds: that of each
// text file of the tree which has one. What is indexed depends on the
// tree and the history files alone, never on what an earlier run saw, so
// an incremental index holds the history a fresh one holds (a file away
// while its history was read has it indexed again once back). When the
// history sync touched nothing and the last finished run indexed the same
// history, the history files are offered as the index holds them (old),
// unread: an unchanged HEAD then costs no walk of a directory as large as
// the workspace.
func (ix *Indexer) walkHistory(ctx context.Context, old map[string]store.File, seen, read map[string]bool, visit func(discover.Candidate) error) error {
	if ix.opts.HistoryDepth <= 0 {
		return nil
	}
	want := make(map[string]string, len(seen)) // history file -> its source
	for src := range seen {
		if !strings.HasPrefix(src, ".dossier/") {
			want[history.File(src)] = src
		}
	}
	// A file the index holds and the run does not read is text; one it
	// reads is looked at (a binary file's history is not indexed).
	text := func(src string) bool { return !read[src] || ix.textFile(src) }
	if ix.history.Unchanged && ix.history.Mark == ix.prevHistoryMark {
		for rel, f := range old {
			if src, ok := want[rel]; ok && text(src) {
				c := discover.Candidate{Rel: rel, Abs: filepath.Join(ix.root, filepath.FromSlash(rel)), Size: f.Size, ModTime: f.ModTime}
				if err := visit(c); err != nil {
					return err
				}
			}
		}
		// A file the run reads (new, back after a while, changed from
		// binary) has its history file on disk but maybe no record.
		for rel, src := range want {
			if _, held := old[rel]; held || !read[src] || !text(src) {
				continue
			}
			if err := offer(filepath.Join(ix.root, filepath.FromSlash(rel)), rel, visit); err != nil {
				return err
			}
		}
		return nil
	}
	dir := filepath.Join(ix.root, filepath.FromSlash(history.Dir))
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, rerr := filepath.Rel(ix.root, p)
		rel = filepath.ToSlash(rel)
		if src, ok := want[rel]; rerr != nil || !ok || !text(src) {
			return nil
		}
		return offer(p, rel, visit)
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// textFile reports whether src is a regular file within the size cap
// whose head has no NUL byte: what the indexer reads as text (see
// worker.process).
func (ix *Indexer) textFile(src string) bool {
	abs := filepath.Join(ix.root, filepath.FromSlash(src))
	head, err := fsafe.ReadHead(abs, sniffLen, cmp.Or(ix.opts.MaxFileSize, discover.DefaultMaxFileSize))
	return err == nil && bytes.IndexByte(head, 0) < 0
}

// historyOf adds the history files of paths, which updatePaths brings up
// to date, to cands (those it reads) or gone, as walkHistory decides
// them: indexed when the path is a text file of the tree (a candidate)
// with a history file on disk, removed otherwise.
func (ix *Indexer) historyOf(paths []string, cands []discover.Candidate, gone []string) ([]discover.Candidate, []string) {
	if ix.opts.HistoryDepth <= 0 {
		return cands, gone
	}
	isCand := make(map[string]bool, len(cands))
	for _, c := range cands {
		isCand[c.Rel] = true
	}
	for _, p := range paths {
		if strings.HasPrefix(p, ".dossier/") {
			continue
		}
		rel := history.File(p)
		abs := filepath.Join(ix.root, filepath.FromSlash(rel))
		if st, err := os.Lstat(abs); err == nil && st.Mode().IsRegular() && isCand[p] && ix.textFile(p) {
			cands = append(cands, discover.Candidate{Rel: rel, Abs: abs, Size: st.Size(), ModTime: st.ModTime().UnixNano()})
			continue
		}
		gone = append(gone, rel)
		if !isCand[p] {
			gone = append(gone, history.Dir+"/"+p) // a directory gone: its files' history
		}
	}
	return cands, gone
}

func offer(abs, rel string, visit func(discover.Candidate) error) error {
	st, err := os.Lstat(abs)
	if err != nil || !st.Mode().IsRegular() {
		return nil
	}
	return visit(discover.Candidate{Rel: rel, Abs: abs, Size: st.Size(), ModTime: st.ModTime().UnixNano()})
}

// dossierSource is the source type of a file under .dossier the index
// reads (text, its content), with the facts its chunks' finders carry, or
// "" for any other file.
func dossierSource(root, rel string, text []byte) (string, []string) {
	if src, ok := history.SourceOf(rel, text); ok {
		return lang.SrcFileChange, []string{"file", src}
	}
	dir, name := path.Split(rel)
	parts := strings.Split(strings.TrimSuffix(dir, "/"), "/")
	if len(parts) != 4 || parts[0]+"/"+parts[1] != flowsDir || parts[3] != "turns" || !answerFile.MatchString(name) {
		return "", nil
	}
	return lang.SrcRunSummary, runFacts(root, parts[2], name)
}

// runFacts are what a run summary's finder says about its turn: the
// flow's name, the request the turn answered, the model and the date
// (from the answer's provenance line). What cannot be read is left out.
func runFacts(root, flowID, answer string) []string {
	flowDir := filepath.Join(root, filepath.FromSlash(flowsDir), flowID)
	facts := []string{"flow", flowID}
	if data, err := fsafe.ReadFile(filepath.Join(flowDir, "flow.json"), 1<<20); err == nil {
		var meta struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(data, &meta) == nil && meta.Name != "" && meta.Name != flowID {
			facts[1] = meta.Name + " (" + flowID + ")"
		}
	}
	n := strings.TrimSuffix(answer, ".answer.md")
	if data, err := fsafe.ReadFile(filepath.Join(flowDir, "turns", n+".request.json"), 64<<20); err == nil {
		if req := requestOf(data); req != "" {
			facts = append(facts, "request", req)
		}
	}
	if head, err := fsafe.ReadHead(filepath.Join(flowDir, "turns", answer), 2048, 64<<20); err == nil {
		line, _, _ := strings.Cut(string(head), "\n")
		for _, k := range []string{"model", "time"} {
			if v := provValue(line, k); v != "" {
				facts = append(facts, map[string]string{"model": "model", "time": "date"}[k], v)
			}
		}
	}
	return facts
}

// maxRequest caps the request quoted in a run summary's finder.
const maxRequest = 400

// requestOf is the text a person asked in a posted body: the last user
// message's first text, without dossier's [MODE] and [INSTRUCTION] lines.
func requestOf(body []byte) string {
	var doc struct {
		Input    []json.RawMessage `json:"input"`
		Messages []json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return ""
	}
	msgs := doc.Input
	if msgs == nil {
		msgs = doc.Messages
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(msgs[i], &m) != nil || m.Role != "user" {
			continue
		}
		text := ""
		if json.Unmarshal(m.Content, &text) != nil {
			var items []struct {
				Text string `json:"text"`
			}
			_ = json.Unmarshal(m.Content, &items)
			for _, it := range items {
				if it.Text != "" {
					text = it.Text
					break
				}
			}
		}
		var kept []string
		for l := range strings.Lines(text) {
			t := strings.TrimSpace(l)
			if t == "[INSTRUCTION]" || strings.HasPrefix(t, "[MODE") {
				continue
			}
			kept = append(kept, t)
		}
		out := strings.Join(strings.Fields(strings.Join(kept, " ")), " ")
		if len(out) > maxRequest {
			cut := maxRequest
			for cut > 0 && out[cut]&0xC0 == 0x80 {
				cut--
			}
			out = out[:cut] + "…"
		}
		return out
	}
	return ""
}

// provValue reads key's value from an answer's provenance comment
// ("<!-- turn=1; time=...; model=gpt-4o-mini; ... -->").
func provValue(line, key string) string {
	line = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "<!--"), "-->")
	for _, kv := range strings.Split(line, ";") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == key {
			v = strings.TrimSpace(v)
			// Values are %XX-encoded as assemble.ProvValue writes them.
			if u, err := url.PathUnescape(v); err == nil {
				v = u
			}
			return v
		}
	}
	return ""
}
