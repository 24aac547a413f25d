package laravel

import (
	"encoding/json"

	"github.com/dossierhq/dossier/index/appgraph"
)

// NewDetector returns a detector of the files of Laravel applications in
// the workspace at root: those whose nearest composer.json (up to the
// root) requires laravel/framework or laravel/lumen-framework.
func NewDetector(root string) *appgraph.Detector {
	return appgraph.NewDetector(root, func(root, dir string) (bool, bool) {
		data, err := appgraph.ReadManifest(root, dir, "composer.json")
		if err != nil {
			return false, false
		}
		return RequiresLaravel(data), true
	})
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
