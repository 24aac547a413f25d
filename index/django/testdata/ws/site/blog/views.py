from django.shortcuts import get_object_or_404, render
from django.views.generic import CreateView, DetailView

from .forms import CommentForm
from .models import Author, Post


def home(request):
    return render(request, "home.html", {"posts": Post.objects.all()[:5]})


def post_list(request):
    posts = Post.objects.select_related("author")
    return render(request, "blog/list.html", {"posts": posts})


def archive(request, year):
    return render(request, "blog/archive.html", {"posts": Post.objects.filter(created__year=year)})


def _helper(x):
    return x


class PostDetail(DetailView):
    model = Post


class CommentCreate(CreateView):
    form_class = CommentForm

    def form_valid(self, form):
        form.instance.post = get_object_or_404(Post, pk=self.kwargs["pk"])
        return super().form_valid(form)


class AuthorPosts(DetailView):
    def get(self, request, pk):
        author = Author.objects.get(pk=pk)
        return render(request, "blog/author.html", {"author": author})
