package django_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dossierhq/dossier/index"
	"github.com/dossierhq/dossier/index/appgraph"
)

// indexFiles writes files (slash paths) under a new workspace and indexes
// it verbosely; it returns the workspace and the run's summary.
func indexFiles(t *testing.T, files map[string]string) (string, index.Summary) {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	return root, reindex(t, root)
}

// writeFiles writes files (slash paths) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestInheritedFields: a model's fields and relations include those of the
// abstract models it extends, its first base's (another module, through
// its base in turn) and a mixin's (a further base), each where defined.
func TestInheritedFields(t *testing.T) {
	root, _ := indexFiles(t, map[string]string{
		"site/manage.py": "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'core.settings')\n",
		"site/core/models.py": `from django.conf import settings
from django.db import models


class TimeStampedModel(models.Model):
    created = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)

    class Meta:
        abstract = True


class OwnedModel(TimeStampedModel):
    owner = models.ForeignKey("core.Team", on_delete=models.CASCADE)

    class Meta:
        abstract = True


class Team(models.Model):
    name = models.CharField(max_length=80)
`,
		"site/core/mixins.py": `from django.db import models


class SlugMixin(models.Model):
    slug = models.SlugField(unique=True)

    class Meta:
        abstract = True
`,
		"site/blog/models.py": `from django.db import models

from core.mixins import SlugMixin
from core.models import OwnedModel


class Printable:
    def pretty(self):
        return str(self)


class Post(OwnedModel, SlugMixin, Printable):
    title = models.CharField(max_length=200)
`,
	})
	nodes := walk(t, root, "model:Post")
	at := map[string]appgraph.Node{}
	for _, n := range nodes {
		at[n.Type+" "+n.Name] = n
	}
	for name, want := range map[string]string{
		"model_field Post.title":          "site/blog/models.py:13",
		"model_field Post.created":        "site/core/models.py:6",
		"model_field Post.slug":           "site/core/mixins.py:5",
		"model_relation Post::owner":      "site/core/models.py:14",
		"model_relation Post::created_by": "site/core/models.py:7",
	} {
		n, ok := at[name]
		if !ok {
			t.Errorf("model:Post: no %s in\n%s", name, strings.Join(names(nodes), "\n"))
			continue
		}
		if got := n.Path + ":" + strconv.Itoa(n.StartLine); got != want {
			t.Errorf("%s at %s, want %s", name, got, want)
		}
	}
	has(t, nodes, "model site.core.models.Team", "table blog_post")
	hasNot(t, nodes, "model_field Post.owner") // a relation, listed as one
	has(t, walk(t, root, "table:core_team"), "model site.blog.models.Post")
}

// TestComputedPatterns: a path() whose pattern is an f-string of a
// module-level constant is a route with the constant's value; one whose
// interpolation is no such constant, or whose pattern the code computes,
// is kept as written and noted with its line.
func TestComputedPatterns(t *testing.T) {
	root, sum := indexFiles(t, map[string]string{
		"manage.py":    "import os\nos.environ.setdefault('DJANGO_SETTINGS_MODULE', 'app.settings')\n",
		"app/views.py": "def login(request):\n    return None\n\n\ndef health(request):\n    return None\n",
		"app/urls.py": `from django.conf import settings
from django.urls import path
from . import views

prefix = "backoffice/"
API = prefix + "api/"

urlpatterns = [
    path(f"{prefix}admin/login/", views.login, name="login"),
    path(f"{API}health/", views.health, name="health"),
    path(f"{settings.ROOT}x/", views.login, name="x"),
    path(settings.HEALTH_URL, views.health, name="y"),
]
`,
	})
	has(t, walk(t, root, "route:login"), "route ANY /backoffice/admin/login", "controller_method app.views@login")
	has(t, walk(t, root, "route:health"), "route ANY /backoffice/api/health")
	has(t, walk(t, root, "route:x"), "route ANY /{settings.ROOT}x")
	has(t, walk(t, root, "route:y"), "route ANY /{settings.HEALTH_URL}")
	var notes []string
	for _, n := range sum.NotedFiles {
		if n.Path == "app/urls.py" && n.Reason == index.NoteFrameworkUnread {
			notes = append(notes, n.Detail)
		}
	}
	if len(notes) != 2 || !strings.HasPrefix(notes[0], "line 11: ") || !strings.Contains(notes[0], "{settings.ROOT}") ||
		!strings.HasPrefix(notes[1], "line 12: ") {
		t.Errorf("notes of app/urls.py: %q; want lines 11 and 12", notes)
	}
}
