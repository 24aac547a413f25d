from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("blog", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="post",
            name="slug",
            field=models.SlugField(unique=True),
        ),
        migrations.AddField(
            model_name="comment",
            name="post",
            field=models.ForeignKey(on_delete=models.CASCADE, to="blog.post"),
        ),
        migrations.RenameField(model_name="post", old_name="title", new_name="headline"),
        migrations.AddIndex(
            model_name="post",
            index=models.Index(fields=["slug"], name="blog_post_slug_idx"),
        ),
        migrations.RunPython(migrations.RunPython.noop),
    ]
