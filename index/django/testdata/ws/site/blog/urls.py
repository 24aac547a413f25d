from django.urls import path, re_path

from . import views

app_name = "blog"

urlpatterns = [
    path("", views.post_list, name="post-list"),
    path("<int:pk>/", views.PostDetail.as_view(), name="post-detail"),
    path("<int:pk>/comment/", views.CommentCreate.as_view(), name="comment"),
    path("authors/<int:pk>/", views.AuthorPosts.as_view(), name="author"),
    re_path(r"^archive/(?P<year>[0-9]{4})/$", views.archive, name="archive"),
]
