//go:build !linux

package fsafe

import "os"

// SyncFiles makes the files at paths durable: an fsync of each, where no
// call syncs a whole file system (see the Linux version). dir is unused.
func SyncFiles(dir string, paths []string) error {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
