package appgraph

import (
	"os"
	"path"
	"path/filepath"
	"sync"
)

// Verdict says whether the folder dir (slash path relative to the
// workspace root) holds an application of a framework; decided is false
// when the folder says nothing (no manifest) and the folder above decides.
type Verdict func(root, dir string) (app, decided bool)

// Detector tells which files belong to an application of one framework:
// a file's folder asks its Verdict, then the folders above it up to the
// workspace root until one decides. Each folder is asked once; it is safe
// for concurrent use. Make a new one per index run so a changed manifest
// is read again.
type Detector struct {
	root    string
	verdict Verdict
	mu      sync.Mutex
	dirs    map[string]home // dir -> the verdict that holds for it
}

// home is a folder's verdict and the folder that gave it.
type home struct {
	app bool
	dir string
}

// NewDetector returns a detector for the workspace at root.
func NewDetector(root string, v Verdict) *Detector {
	return &Detector{root: root, verdict: v, dirs: map[string]home{}}
}

// In reports whether the file at rel (slash path) is part of an application.
func (d *Detector) In(rel string) bool {
	if d == nil {
		return false
	}
	return d.dir(path.Dir(rel)).app
}

// Home is the folder of the application the file at rel belongs to (the
// one whose manifest decided, "." for the workspace root); ok is false
// when it belongs to none.
func (d *Detector) Home(rel string) (dir string, ok bool) {
	if d == nil {
		return "", false
	}
	h := d.dir(path.Dir(rel))
	return h.dir, h.app
}

func (d *Detector) dir(dir string) home {
	d.mu.Lock()
	h, ok := d.dirs[dir]
	d.mu.Unlock()
	if ok {
		return h
	}
	v, decided := d.verdict(d.root, dir)
	h = home{v, dir}
	if !decided && dir != "." && dir != "/" && dir != "" {
		h = d.dir(path.Dir(dir))
	}
	d.mu.Lock()
	d.dirs[dir] = h
	d.mu.Unlock()
	return h
}

// ReadManifest reads the file named base in the folder dir of the
// workspace at root.
func ReadManifest(root, dir, base string) ([]byte, error) {
	return os.ReadFile(filepath.Join(root, filepath.FromSlash(dir), base))
}
