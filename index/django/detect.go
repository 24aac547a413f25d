package django

import (
	"strings"

	"github.com/dossierhq/dossier/index/appgraph"
)

// Manifests are the files whose contents tell a Django project: manage.py
// (it sets DJANGO_SETTINGS_MODULE) and the dependency lists that name
// Django (requirements.txt, pyproject.toml, setup.cfg, setup.py, Pipfile).
var Manifests = []string{"manage.py", "requirements.txt", "pyproject.toml", "setup.cfg", "setup.py", "Pipfile"}

// NewDetector returns a detector of the files of Django projects in the
// workspace at root: those under a folder (up to the root) one of whose
// manifests names Django. A folder whose manifests do not name Django
// defers to the folders above it, so a project's own packaged apps (an
// app with its own setup.cfg) stay in it.
func NewDetector(root string) *appgraph.Detector {
	return appgraph.NewDetector(root, func(root, dir string) (bool, bool) {
		for _, m := range Manifests {
			if data, err := appgraph.ReadManifest(root, dir, m); err == nil && NamesDjango(m, data) {
				return true, true
			}
		}
		return false, false
	})
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
