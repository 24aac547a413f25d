package index

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/dossierhq/dossier/store"
)

// repoInfo reads the git facts of root straight from .git (no git binary
// needed): remote URL of origin, branch and commit.
func repoInfo(root string) store.Repo {
	r := store.Repo{Root: root, Name: filepath.Base(root)}
	gitDir := filepath.Join(root, ".git")
	if data, err := os.ReadFile(gitDir); err == nil {
		// A worktree or submodule: ".git" is a file pointing elsewhere.
		if s, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir: "); ok {
			if !filepath.IsAbs(s) {
				s = filepath.Join(root, s)
			}
			gitDir = s
		}
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
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
	if data, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(data))
	}
	common := gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common = filepath.Join(gitDir, strings.TrimSpace(string(data)))
		if data, err := os.ReadFile(filepath.Join(common, filepath.FromSlash(ref))); err == nil {
			return strings.TrimSpace(string(data))
		}
	}
	f, err := os.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[1] == ref {
			return fields[0]
		}
	}
	return ""
}

func originURL(gitDir string) string {
	f, err := os.Open(filepath.Join(gitDir, "config"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	inOrigin := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			inOrigin = line == `[remote "origin"]`
			continue
		}
		if k, v, ok := strings.Cut(line, "="); inOrigin && ok && strings.TrimSpace(k) == "url" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
