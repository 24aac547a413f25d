package jsapp

import (
	"encoding/json"

	"github.com/dossierhq/dossier/index/appgraph"
)

// NewExpressDetector returns a detector of Express applications in the
// workspace at root (see newDetector).
func NewExpressDetector(root string) *appgraph.Detector { return newDetector(root, "express") }

// NewNextDetector returns a detector of Next.js applications in the
// workspace at root.
func NewNextDetector(root string) *appgraph.Detector { return newDetector(root, "next") }

// newDetector tells the files whose nearest package.json (up to the
// workspace root) lists dep among dependencies or devDependencies: in a
// monorepo each package.json decides for its folder.
func newDetector(root, dep string) *appgraph.Detector {
	return appgraph.NewDetector(root, func(root, dir string) (bool, bool) {
		data, err := appgraph.ReadManifest(root, dir, "package.json")
		if err != nil {
			return false, false
		}
		return Depends(data, dep), true
	})
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
