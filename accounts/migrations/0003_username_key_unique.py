"""The username key is unique and the skeleton indexed, once 0002 has filled them (a migration of
its own: PostgreSQL cannot alter a table with updates of the same transaction pending)."""

from django.db import migrations, models

import accounts.models


class Migration(migrations.Migration):
    dependencies = [("accounts", "0002_username_key")]

    operations = [
        migrations.AlterModelManagers(
            name="user",
            managers=[("objects", accounts.models.Users())],
        ),
        migrations.AlterField(
            model_name="user",
            name="username_key",
            field=models.CharField(editable=False, max_length=600, null=True, unique=True),
        ),
        migrations.AlterField(
            model_name="user",
            name="username_skeleton",
            field=models.CharField(db_index=True, editable=False, max_length=600),
        ),
    ]
