from django.db import models


class Product(models.Model):
    name = models.CharField(max_length=80)
    author = models.ForeignKey("blog.Author", on_delete=models.PROTECT)

    class Meta:
        db_table = "products"
