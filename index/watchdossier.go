package index

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"

	"github.com/dossierhq/dossier/store"
)

// A watcher ignores .git and .dossier as the workspace's files, but the
// index reads from both: a new commit moves HEAD or a branch ref (the
// file_change history), and `dossier send` keeps answers in the flows'
// turns/ (run summaries). Such an event is taken in by a full run.

// watchDossier adds the directories of those events to w.
func (ix *Indexer) watchDossier(w *fsnotify.Watcher) {
	if ix.opts.HistoryDepth > 0 {
		gitDir, common := gitDirs(ix.root)
		for _, d := range []string{gitDir, common} {
			if d != "" {
				_ = w.Add(d)
			}
		}
		if common != "" {
			_ = filepath.WalkDir(filepath.Join(common, "refs", "heads"), func(p string, d os.DirEntry, err error) error {
				if err == nil && d.IsDir() {
					_ = w.Add(p)
				}
				return nil
			})
		}
	}
	if ix.opts.RunSummaries {
		dossier := filepath.Join(ix.root, store.DirName)
		_ = w.Add(dossier) // to see flows/ made
		flows := filepath.Join(ix.root, filepath.FromSlash(flowsDir))
		_ = w.Add(flows)
		entries, _ := os.ReadDir(flows)
		for _, e := range entries {
			if e.IsDir() {
				ix.watchFlow(w, filepath.Join(flows, e.Name()))
			}
		}
	}
}

func (ix *Indexer) watchFlow(w *fsnotify.Watcher, dir string) {
	_ = w.Add(dir)
	_ = w.Add(filepath.Join(dir, "turns"))
}

// dossierEvent reports whether ev is one of the events watchDossier
// watches for (then a full run takes it in), watching the directories
// it makes.
func (ix *Indexer) dossierEvent(w *fsnotify.Watcher, ev fsnotify.Event) bool {
	rel, err := filepath.Rel(ix.root, ev.Name)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	base := filepath.Base(ev.Name)
	if ix.opts.RunSummaries && strings.HasPrefix(rel+"/", flowsDir+"/") {
		parts := strings.Split(strings.TrimPrefix(rel, flowsDir), "/")[1:]
		switch {
		case len(parts) == 0: // flows/ itself made or removed
			if ev.Op.Has(fsnotify.Create) {
				_ = w.Add(ev.Name)
			}
			return true
		case len(parts) == 1: // a flow made or removed
			if ev.Op.Has(fsnotify.Create) {
				ix.watchFlow(w, ev.Name)
			}
			return true
		case len(parts) == 2 && parts[1] == "turns":
			if ev.Op.Has(fsnotify.Create) {
				_ = w.Add(ev.Name)
			}
			return true
		case len(parts) == 3 && parts[1] == "turns":
			return answerFile.MatchString(parts[2])
		}
		return false
	}
	inside := rel != ".." && !strings.HasPrefix(rel, "../")
	if ix.opts.HistoryDepth == 0 || strings.HasSuffix(base, ".lock") || inside && !strings.HasPrefix(rel, ".git/") {
		return false
	}
	gitDir, common := gitDirs(ix.root)
	dir := filepath.Dir(ev.Name)
	switch {
	case base == "HEAD" && (dir == gitDir || dir == common), base == "packed-refs" && dir == common:
		return true
	case common != "" && strings.HasPrefix(ev.Name, filepath.Join(common, "refs", "heads")+string(filepath.Separator)):
		if ev.Op.Has(fsnotify.Create) {
			if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
				_ = w.Add(ev.Name)
			}
		}
		return true
	}
	return false
}

// gitDirs are root's git directory and the common one (the same but for
// a linked worktree), "" when root is no repository.
func gitDirs(root string) (gitDir, common string) {
	gitDir = filepath.Join(root, ".git")
	if data, err := readGit(gitDir); err == nil {
		s, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: ")
		if !ok {
			return "", ""
		}
		if !filepath.IsAbs(s) {
			s = filepath.Join(root, s)
		}
		gitDir = s
	} else if st, err := os.Stat(gitDir); err != nil || !st.IsDir() {
		return "", ""
	}
	common = gitDir
	if data, err := readGit(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	}
	return gitDir, common
}
