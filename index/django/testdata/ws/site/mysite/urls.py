from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from blog import views as blog_views

_patterns = [
    path("admin/", admin.site.urls),
    path("blog/", include("blog.urls")),
    path("api/", include("api.urls")),
    path("", blog_views.home, name="home"),
]

# netbox's shape: a prefix from the settings (empty by default)
urlpatterns = [path(settings.BASE_PATH, include(_patterns))]
