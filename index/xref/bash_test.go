package xref

import (
	"slices"
	"testing"
)

const bashDeploy = `#!/usr/bin/env bash
set -euo pipefail
source "$DIR/lib.sh"
. ./common.sh
VERSION="1.0"
readonly OUT_DIR=/tmp/out

log() { echo "$@" >&2; }

function build {
  local target=$1
  log "building $target"   # deploy_app "in a comment"
  deploy_app "$target"
  result=$(compute_hash "$target")
  if check_ready; then run_tests; fi
  echo "log is no call in a string"
}

build "$@"
`

func TestBashDeploy(t *testing.T) {
	f := parseOK(t, "bash", bashDeploy)
	if got, want := importStrings(f), []string{"*=$DIR/lib.sh:@3", "*=./common.sh:@4"}; !slices.Equal(got, want) {
		t.Errorf("imports %q, want %q", got, want)
	}
	wantDefs(t, bashDeploy, f, "var VERSION", "const OUT_DIR", "function log", "function build")
	wantRefs(t, bashDeploy, f,
		"12 log bare call",
		"13 deploy_app bare call",
		"14 compute_hash bare call",
		"15 check_ready bare call",
		"15 run_tests bare call",
		"19 build bare call",
	)
	noRefs(t, bashDeploy, f, 12, "deploy_app")
	noRefs(t, bashDeploy, f, 16, "log")
	noRefs(t, bashDeploy, f, 11, "target")
	checkIn(t, f)
}
