package index

import (
	"path/filepath"
	"strings"

	"github.com/dossierhq/dossier/store"
	"github.com/dossierhq/dossier/store/fsafe"
)

// readGit reads one of git's files, never waiting on a FIFO or reading a
// device put in its place.
func readGit(path string) ([]byte, error) { return fsafe.ReadFile(path, maxGitFile) }

// maxGitFile bounds the git files read (packed-refs of a large repository
// runs to a few MB).
const maxGitFile = 64 << 20

// lines calls fn for every line of the git file at path until fn returns false.
func lines(path string, fn func(line string) bool) {
	data, err := readGit(path)
	if err != nil {
		return
	}
	for line := range strings.Lines(string(data)) {
		if !fn(strings.TrimRight(line, "\r\n")) {
			return
		}
	}
}

// repoInfo reads the git facts of root straight from .git (no git binary
// needed): remote URL of origin, branch and commit.
func repoInfo(root string) store.Repo {
	r := store.Repo{Root: root, Name: filepath.Base(root)}
	gitDir := filepath.Join(root, ".git")
	if data, err := readGit(gitDir); err == nil {
		// A worktree or submodule: ".git" is a file pointing elsewhere.
		if s, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
			if !filepath.IsAbs(s) {
				s = filepath.Join(root, s)
			}
			gitDir = s
		}
	}
	head, err := readGit(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return r
	}
	h := strings.TrimSpace(string(head))
	if ref, ok := strings.CutPrefix(h, "ref: "); ok {
		r.Branch = strings.TrimPrefix(ref, "refs/heads/")
		r.Commit = resolveRef(gitDir, ref)
	} else {
		r.Commit = h
	}
	r.Remote = originURL(gitDir)
	if r.Remote != "" {
		name := strings.TrimSuffix(filepath.Base(strings.TrimRight(r.Remote, "/")), ".git")
		if i := strings.LastIndexAny(name, ":/"); i >= 0 {
			name = name[i+1:]
		}
		if name != "" {
			r.Name = name
		}
	}
	return r
}

func resolveRef(gitDir, ref string) string {
	if data, err := readGit(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(data))
	}
	common := gitDir
	if data, err := readGit(filepath.Join(gitDir, "commondir")); err == nil {
		common = filepath.Join(gitDir, strings.TrimSpace(string(data)))
		if data, err := readGit(filepath.Join(common, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(data))
		}
	}
	commit := ""
	lines(filepath.Join(common, "packed-refs"), func(line string) bool {
		fields := strings.Fields(line)
		if len(fields) == 2 && fields[1] == ref {
			commit = fields[0]
			return false
		}
		return true
	})
	return commit
}

func originURL(gitDir string) string {
	url, inOrigin := "", false
	lines(filepath.Join(gitDir, "config"), func(line string) bool {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inOrigin = line == `[remote "origin"]`
			return true
		}
		if k, v, ok := strings.Cut(line, "="); inOrigin && ok && strings.TrimSpace(k) == "url" {
			url = strings.TrimSpace(v)
			return false
		}
		return true
	})
	return url
}
