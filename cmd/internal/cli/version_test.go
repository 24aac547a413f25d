package cli

import (
	"runtime/debug"
	"testing"
)

// TestVersionOf reads the module version, the revision and the dirty
// flag from build info, and says them in one line and in one word.
func TestVersionOf(t *testing.T) {
	for _, tc := range []struct {
		name        string
		info        debug.BuildInfo
		line, short string
	}{
		{"stamped, dirty", debug.BuildInfo{GoVersion: "go1.26.8",
			Main:     debug.Module{Version: "v0.0.0-20261128120000-24550e7abcde+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "24550e7abcdef0123456789"}, {Key: "vcs.modified", Value: "true"}}},
			"v0.0.0-20261128120000-24550e7abcde+dirty (rev 24550e7abcde, dirty, go1.26.8)", "v0.0.0-20261128120000-24550e7abcde+dirty"},
		{"a tag, clean", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef"}, {Key: "vcs.modified", Value: "false"}}},
			"v1.2.0 (rev 0123456789ab, go1.26.8)", "v1.2.0+0123456789ab"},
		{"devel, dirty", debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}},
			"(devel) (rev abc, dirty)", "(devel)+abc+dirty"},
		{"unstamped", debug.BuildInfo{}, "(devel)", "(devel)"},
	} {
		v := versionOf(&tc.info)
		if got := v.String(); got != tc.line {
			t.Errorf("%s: String() = %q, want %q", tc.name, got, tc.line)
		}
		if got := v.Short(); got != tc.short {
			t.Errorf("%s: Short() = %q, want %q", tc.name, got, tc.short)
		}
	}
}
