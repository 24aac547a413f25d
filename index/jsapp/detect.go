package jsapp

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"sync"
)

// Detector tells which files belong to an application of one framework:
// those whose nearest package.json (up to the workspace root) lists its
// package among dependencies or devDependencies. In a monorepo each
// package.json decides for its folder. It reads each package.json once and
// is safe for concurrent use; make a new one per index run so a changed
// package.json is seen.
type Detector struct {
	root string
	dep  string
	mu   sync.Mutex
	dirs map[string]bool // dir -> the nearest package.json's verdict
}

// NewExpressDetector returns a detector of Express applications in the
// workspace at root.
func NewExpressDetector(root string) *Detector { return newDetector(root, "express") }

// NewNextDetector returns a detector of Next.js applications in the
// workspace at root.
func NewNextDetector(root string) *Detector { return newDetector(root, "next") }

func newDetector(root, dep string) *Detector {
	return &Detector{root: root, dep: dep, dirs: map[string]bool{}}
}

// In reports whether the file at rel (slash path) is part of an application.
func (d *Detector) In(rel string) bool {
	if d == nil {
		return false
	}
	return d.dir(path.Dir(rel))
}

func (d *Detector) dir(dir string) bool {
	d.mu.Lock()
	v, ok := d.dirs[dir]
	d.mu.Unlock()
	if ok {
		return v
	}
	data, err := os.ReadFile(filepath.Join(d.root, filepath.FromSlash(dir), "package.json"))
	switch {
	case err == nil:
		v = Depends(data, d.dep)
	case dir == "." || dir == "/" || dir == "":
		v = false
	default:
		v = d.dir(path.Dir(dir))
	}
	d.mu.Lock()
	d.dirs[dir] = v
	d.mu.Unlock()
	return v
}

// Depends reports whether a package.json lists dep among its dependencies
// or devDependencies. A package.json that does not parse lists nothing.
func Depends(pkg []byte, dep string) bool {
	var p struct {
		Deps    map[string]any `json:"dependencies"`
		DevDeps map[string]any `json:"devDependencies"`
	}
	if json.Unmarshal(pkg, &p) != nil {
		return false
	}
	return p.Deps[dep] != nil || p.DevDeps[dep] != nil
}
