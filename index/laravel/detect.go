package laravel

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"sync"
)

// Detector tells which files belong to a Laravel application: those whose
// nearest composer.json (up to the workspace root) requires
// laravel/framework or laravel/lumen-framework. It reads each composer.json
// once and is safe for concurrent use; make a new one per index run so a
// changed composer.json is seen.
type Detector struct {
	root string
	mu   sync.Mutex
	dirs map[string]bool // dir -> Laravel (the nearest composer.json's verdict)
}

// NewDetector returns a detector for the workspace at root.
func NewDetector(root string) *Detector { return &Detector{root: root, dirs: map[string]bool{}} }

// In reports whether the file at rel (slash path) is part of a Laravel app.
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
	data, err := os.ReadFile(filepath.Join(d.root, filepath.FromSlash(dir), "composer.json"))
	switch {
	case err == nil:
		v = RequiresLaravel(data)
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

// RequiresLaravel reports whether a composer.json requires Laravel.
func RequiresLaravel(composer []byte) bool {
	var c struct {
		Require    map[string]any `json:"require"`
		RequireDev map[string]any `json:"require-dev"`
	}
	if json.Unmarshal(composer, &c) != nil {
		return false
	}
	for _, p := range []string{"laravel/framework", "laravel/lumen-framework"} {
		if c.Require[p] != nil {
			return true
		}
	}
	return false
}
