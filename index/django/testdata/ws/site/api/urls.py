from django.urls import include, path
from rest_framework.routers import DefaultRouter

from blog.api import PostViewSet
from shop import views

router = DefaultRouter()
router.register(r"posts", PostViewSet, basename="post")

app_name = "api"

urlpatterns = [
    path("v1/", include(router.urls)),
    path("products/", include([
        path("", views.ProductList.as_view(), name="product-list"),
        path("<int:pk>/", views.product_detail, name="product-detail"),
    ])),
]
