package appgraph

import (
	"sync/atomic"
	"testing"
)

// TestDetector: the nearest folder that decides holds for everything under
// it, a folder that does not decide defers upward, and each folder is asked
// once.
func TestDetector(t *testing.T) {
	verdicts := map[string][2]bool{ // dir -> app, decided
		"shop":         {true, true},
		"shop/vendor":  {false, true},
		"shop/modules": {false, false},
	}
	var asked atomic.Int32
	d := NewDetector("/ws", func(root, dir string) (bool, bool) {
		asked.Add(1)
		v := verdicts[dir]
		return v[0], v[1]
	})
	for rel, want := range map[string]bool{
		"shop/app/Models/Post.php":    true,
		"shop/modules/blog/Post.php":  true,
		"shop/vendor/lib/Thing.php":   false,
		"tools/script.php":            false,
		"main.php":                    false,
		"shop/app/Models/Comment.php": true,
	} {
		if got := d.In(rel); got != want {
			t.Errorf("In(%s) = %v, want %v", rel, got, want)
		}
	}
	// shop/app/Models, shop/app, shop, shop/modules/blog, shop/modules,
	// shop/vendor/lib, shop/vendor, tools, .: nine folders, once each.
	if n := asked.Load(); n != 9 {
		t.Errorf("%d verdicts asked, want 9 (each folder once)", n)
	}
	var nilD *Detector
	if nilD.In("x.php") {
		t.Error("a nil detector takes files")
	}
}
