package laravel

import "testing"

// TestSingular: resource parameters are the singular of the resource
// name, as Laravel's inflector gives it.
func TestSingular(t *testing.T) {
	for plural, want := range map[string]string{"invoices": "invoice", "categories": "category", "statuses": "status",
		"aliases": "alias", "boxes": "box", "people": "person", "news": "news", "addresses": "address"} {
		if got := singular(plural); got != want {
			t.Errorf("singular(%s) = %s, want %s", plural, got, want)
		}
	}
}
