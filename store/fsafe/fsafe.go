// Package fsafe reads the small files dossier keeps or is handed (config,
// caches, trust records) without trusting them to be what their names
// say: a FIFO, a device or a huge file put in their place is refused,
// never waited on or read to the end. It also writes them whole (Temp),
// so that what a killed writer leaves can be told from what a live one is
// writing, and swept (Sweep).
package fsafe

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is returned for a path that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is returned for a file larger than the caller's limit.
var ErrTooLarge = errors.New("file too large")

// ReadFile reads a regular file of at most max bytes, following symlinks.
// It opens without blocking on a FIFO and checks the open handle, so a file
// swapped after the check is caught too. A missing file is fs.ErrNotExist.
func ReadFile(path string, max int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, st, max); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := check(path, st, max); err != nil {
		return nil, err
	}
	data, err := readAll(f, st.Size(), max)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s grew past %d bytes while read: %w", path, max, ErrTooLarge)
	}
	return data, nil
}

// ReadHead reads the first n bytes of path (fewer if it is shorter), with
// ReadFile's checks: a file that is not regular, or larger than max, is
// refused without being read. It lets a caller reject a file by its head
// (a binary sniff) without reading all of it.
func ReadHead(path string, n int, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := check(path, st, max); err != nil {
		return nil, err
	}
	head := make([]byte, min(int64(n), st.Size()))
	k, err := io.ReadFull(f, head)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return head[:k], err
}

func check(path string, st fs.FileInfo, max int64) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, st.Mode().Type())
	}
	if st.Size() > max {
		return fmt.Errorf("%s is %d bytes, more than the %d this file may hold: %w", path, st.Size(), max, ErrTooLarge)
	}
	return nil
}

// readAll reads f to its end, or to one byte past max, into a buffer sized
// by the size f had when checked, as os.ReadFile does: io.ReadAll starts
// at 512 bytes and grows, which cost an index run more in copying and
// clearing memory than the reads themselves.
func readAll(f *os.File, size, max int64) ([]byte, error) {
	data := make([]byte, 0, min(size, max)+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return nil, err
		}
		if int64(len(data)) > max {
			return data, nil
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}
