package main

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

type copyStats struct {
	files   int   // regular files, per copy
	bytes   int64 // their bytes, per copy
	skipped int   // symlinks, devices, sockets, pipes
}

// copyTree copies the directories and regular files under src into each of
// dsts (which must not exist yet). Anything else is skipped and counted, and
// so is an existing .dossier directory, so each copy starts unindexed.
// Modification times are not preserved.
func copyTree(ctx context.Context, src string, dsts ...string) (copyStats, error) {
	var st copyStats
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		switch {
		case d.IsDir() && d.Name() == ".dossier" && p != src:
			return filepath.SkipDir
		case d.IsDir():
			for _, dst := range dsts {
				if err := os.MkdirAll(filepath.Join(dst, rel), 0o755); err != nil {
					return err
				}
			}
		case d.Type().IsRegular():
			for _, dst := range dsts {
				n, err := copyFile(p, filepath.Join(dst, rel))
				if err != nil {
					return err
				}
				if dst == dsts[0] {
					st.files++
					st.bytes += n
				}
			}
		default:
			st.skipped++
		}
		return nil
	})
	return st, err
}

func copyFile(src, dst string) (int64, error) {
	in, err := os.Open(src)
	if err != nil {
		return 0, err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(out, in)
	return n, errors.Join(err, out.Close())
}
