#!/bin/sh
# workbench-shot.sh prints the workbench as a real terminal shows it: it
# builds dossier, writes a small Go project with a flow, opens `dossier` on
# it in a detached tmux pane of 100x22 and prints the pane's text. The
# picture in README.md is its output (`make shot`).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
make -s -C "$repo" build
dir=$(mktemp -d /tmp/dossier-shot.XXXXXX)
sock="$dir/tmux.sock"
trap 'tmux -S "$sock" kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT
ws="$dir/calc"
mkdir -p "$ws/parse"
cat > "$ws/parse/parse.go" <<'GO'
// Package parse reads arithmetic expressions.
package parse

import "errors"

// ErrEmpty is returned for an empty expression.
var ErrEmpty = errors.New("empty expression")

// Parse reads one expression.
func Parse(src string) (int, error) {
	if src == "" {
		return 0, ErrEmpty
	}
	return Div(len(src), 1), nil
}

// Div divides a by b.
func Div(a, b int) int { return a / b }
GO
cat > "$ws/parse/parse_test.go" <<'GO'
package parse

import "testing"

func TestParse(t *testing.T) {
	if _, err := Parse(""); err != ErrEmpty {
		t.Fatal(err)
	}
}
GO
printf 'module example.com/calc\n\ngo 1.26\n' > "$ws/go.mod"
d="$repo/bin/dossier"
(cd "$ws" && "$d" index >/dev/null && "$d" flow new fix-div --request "Why does Div panic on zero?" >/dev/null &&
	"$d" evidence add parse/parse.go::@Div >/dev/null && "$d" evidence add parse/parse_test.go >/dev/null)
tmux -S "$sock" -f /dev/null new-session -d -x 100 -y 22 -c "$ws" "TERM=xterm-256color $d"
sleep 3
tmux -S "$sock" send-keys -t 0 j
sleep 1
tmux -S "$sock" capture-pane -p -t 0 | sed -e 's/[[:space:]]*$//' -e "s|$dir|/tmp|g"
