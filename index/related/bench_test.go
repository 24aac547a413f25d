package related

import (
	"os"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/store"
)

// BenchmarkExpand measures expansions on a big index, cold (no file's
// references read before) and warm (the files an expansion parsed are
// cached, as in the workbench). Set DOSSIER_BENCH_ROOT to an indexed copy
// of $(go env GOROOT)/src.
func BenchmarkExpand(b *testing.B) {
	root := os.Getenv("DOSSIER_BENCH_ROOT")
	if root == "" {
		b.Skip("set DOSSIER_BENCH_ROOT to an indexed copy of $GOROOT/src")
	}
	db, err := store.Open(store.Path(root), store.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for _, sel := range []string{"net/http/server.go", "net/http/server.go::@ServeHTTP", "net/http/server.go::2000,2100"} {
		target, err := ParseTarget(sel)
		if err != nil {
			b.Fatal(err)
		}
		name := strings.NewReplacer("/", "_", "::", "@").Replace(sel)
		b.Run(name+"/cold", func(b *testing.B) {
			for b.Loop() {
				xcache.Purge() // every file parsed again
				err := db.View(func(tx *store.Tx) error {
					_, err := Expand(tx, target, Options{})
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/warm", func(b *testing.B) {
			for b.Loop() {
				err := db.View(func(tx *store.Tx) error {
					_, err := Expand(tx, target, Options{})
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
