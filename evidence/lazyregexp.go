package evidence

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use: compiled at package init, the
// package's patterns cost every dossier process a few milliseconds before
// any command began, whether or not it used them (as in evidence/trace).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
