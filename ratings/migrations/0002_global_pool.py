from django.db import migrations


def create_global_pool(apps, schema_editor):
    """The global pool's row is also the ledger lock; made here so the first rated games do not
    race to create it (the services still create it if a flushed test database lacks it)."""
    apps.get_model("ratings", "Pool").objects.get_or_create(kind="global")


class Migration(migrations.Migration):
    dependencies = [("ratings", "0001_ratings")]

    operations = [migrations.RunPython(create_global_pool, migrations.RunPython.noop)]
