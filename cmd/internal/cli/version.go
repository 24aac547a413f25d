package cli

import (
	"runtime/debug"
	"strings"
)

// BuildVersion is what a binary knows of its own build, read from the
// build info the Go toolchain embeds (runtime/debug.ReadBuildInfo): the
// module's version, and the VCS revision it was built from with whether
// the work tree had uncommitted changes. A binary built without VCS
// stamping (go test, -buildvcs=false) has no revision.
type BuildVersion struct {
	// Module is the main module's version: a tag, a pseudo-version, or
	// "(devel)" for a build outside a module download.
	Module string `json:"module"`
	// Revision is the VCS commit, empty when the build was not stamped.
	Revision string `json:"revision,omitempty"`
	// Dirty is set when the work tree had changes the revision lacks.
	Dirty bool `json:"dirty,omitempty"`
	// Go is the toolchain that built the binary.
	Go string `json:"go"`
}

// Version returns the running binary's build version.
func Version() BuildVersion {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return BuildVersion{Module: "(unknown)"}
	}
	return versionOf(info)
}

// versionOf reads a BuildVersion from build info.
func versionOf(info *debug.BuildInfo) BuildVersion {
	v := BuildVersion{Module: info.Main.Version, Go: info.GoVersion}
	if v.Module == "" {
		v.Module = "(devel)"
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.modified":
			v.Dirty = s.Value == "true"
		}
	}
	return v
}

// String is the version as one line: the module version, then the
// revision (short) and "dirty" when the work tree had changes, e.g.
// "v0.0.0-20261128120000-24550e7abcde+dirty (rev 24550e7abcde, dirty)".
func (v BuildVersion) String() string {
	var extra []string
	if v.Revision != "" {
		extra = append(extra, "rev "+short(v.Revision))
	}
	if v.Dirty {
		extra = append(extra, "dirty")
	}
	if v.Go != "" {
		extra = append(extra, v.Go)
	}
	if len(extra) == 0 {
		return v.Module
	}
	return v.Module + " (" + strings.Join(extra, ", ") + ")"
}

// Short is the version as one word, for a protocol's version field (the
// MCP server's implementation version): the module version, with the
// short revision and "+dirty" when the module version does not say them.
func (v BuildVersion) Short() string {
	s := v.Module
	if v.Revision != "" && !strings.Contains(s, short(v.Revision)) {
		s += "+" + short(v.Revision)
	}
	if v.Dirty && !strings.HasSuffix(s, "+dirty") {
		s += "+dirty"
	}
	return s
}

// short cuts a revision to the twelve characters pseudo-versions use.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}
