package django_test

import "testing"

// A URLconf that includes the same list under two prefixes serves each of
// its routes twice: one route per include, and the file keeps its chunks
// (it once vanished from the index on a duplicate chunk id).
func TestSameListIncludedTwice(t *testing.T) {
	root, sum := indexFiles(t, map[string]string{
		"manage.py":    "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'app.settings')\n",
		"app/views.py": "def items(request):\n    return None\n",
		"app/urls.py": `from django.urls import include, path
from . import views

api = [
    path("items/", views.items, name="items"),
]

urlpatterns = [
    path("api/v1/", include(api)),
    path("api/v2/", include(api)),
]
`,
	})
	if len(sum.Errors) > 0 || len(sum.NotedFiles) > 0 {
		t.Errorf("errors %v, notes %+v", sum.Errors, sum.NotedFiles)
	}
	for _, uri := range []string{"/api/v1/items", "/api/v2/items"} {
		has(t, walk(t, root, "route:"+uri), "route ANY "+uri, "controller_method app.views@items")
	}
}
