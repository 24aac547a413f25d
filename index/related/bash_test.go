package related

import "testing"

var bashFiles = map[string]string{
	"scripts/deploy.sh": "#!/usr/bin/env bash\nset -eu\nsource \"$(dirname \"$0\")/../lib/common.sh\"\n\nmain() {\n  log \"deploying\"\n  upload_release \"$1\"\n}\n\nmain \"$@\"\n",
	"lib/common.sh":     "log() {\n  echo \"$*\" >&2\n}\n\nupload_release() {\n  log \"upload $1\"   # upload_release in a comment\n  echo \"upload_release is no call here\"\n}\n",
}

func TestBashCommandsCallFunctions(t *testing.T) {
	db := fixtureOf(t, bashFiles)
	x := expand(t, db, "lib/common.sh::@log")
	check(t, "callers", callersOf(x), []string{
		"lib/common.sh:6 upload_release (function) calls log",
		"scripts/deploy.sh:6 main (function) calls log",
	})
	x = expand(t, db, "scripts/deploy.sh::@main")
	check(t, "callees", calleesOf(x), []string{
		"lib/common.sh:1 log (function) <- 6",
		"lib/common.sh:5 upload_release (function) <- 7",
	})
}
