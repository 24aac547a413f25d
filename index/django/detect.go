package django

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
)

// Manifests are the files whose contents tell a Django project: manage.py
// (it sets DJANGO_SETTINGS_MODULE) and the dependency lists that name
// Django (requirements.txt, pyproject.toml, setup.cfg, setup.py, Pipfile).
var Manifests = []string{"manage.py", "requirements.txt", "pyproject.toml", "setup.cfg", "setup.py", "Pipfile"}

// Detector tells which files belong to a Django project: those under a
// folder (up to the workspace root) one of whose manifests names Django.
// A folder whose manifests do not name Django defers to the folders above
// it, so a project's own packaged apps (an app with its own setup.cfg)
// stay in it. It reads each manifest once and is safe for concurrent use;
// make a new one per index run so a changed manifest is seen.
type Detector struct {
	root string
	mu   sync.Mutex
	dirs map[string]bool
}

// NewDetector returns a detector for the workspace at root.
func NewDetector(root string) *Detector { return &Detector{root: root, dirs: map[string]bool{}} }

// In reports whether the file at rel (slash path) is part of a Django project.
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
	for _, m := range Manifests {
		data, err := os.ReadFile(filepath.Join(d.root, filepath.FromSlash(dir), m))
		if err == nil && NamesDjango(m, data) {
			v = true
			break
		}
	}
	if !v && dir != "." && dir != "/" && dir != "" {
		v = d.dir(path.Dir(dir))
	}
	d.mu.Lock()
	d.dirs[dir] = v
	d.mu.Unlock()
	return v
}

// NamesDjango reports whether the manifest named base (manage.py,
// requirements.txt, ...) makes its folder a Django project: manage.py
// sets DJANGO_SETTINGS_MODULE or imports django; a dependency list names
// the django package (not only django-something).
func NamesDjango(base string, data []byte) bool {
	s := string(data)
	if base == "manage.py" {
		return strings.Contains(s, "DJANGO_SETTINGS_MODULE") || strings.Contains(s, "import django") || strings.Contains(s, "from django")
	}
	for line := range strings.Lines(strings.ToLower(s)) {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for i := 0; ; {
			j := strings.Index(line[i:], "django")
			if j < 0 {
				break
			}
			j += i
			before, after := byte(' '), byte(' ')
			if j > 0 {
				before = line[j-1]
			}
			if k := j + len("django"); k < len(line) {
				after = line[k]
			}
			if strings.IndexByte(" \t\"'[,=", before) >= 0 && strings.IndexByte(" \t\r\n\"'<>=!~;[,^:", after) >= 0 {
				return true
			}
			i = j + len("django")
		}
	}
	return false
}
