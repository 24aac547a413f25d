from django.http import JsonResponse
from django.views.generic import ListView

from shop.models import *  # noqa: F403 (netbox style)


class ProductList(ListView):
    queryset = Product.objects.order_by("name")


def product_detail(request, pk):
    return JsonResponse({"name": Product.objects.get(pk=pk).name})
