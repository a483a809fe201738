"""Usernames get their canonical key and skeleton (accounts.usernames).

Existing names keep working: each account gets the key of its name. Two accounts whose names have
one key (a fullwidth ``admin`` registered through the API beside ``admin``, ``Straße`` beside ``strasse``)
cannot both hold it: the older keeps it, the newer gets none and is named in a warning. It still
logs in by its exact spelling (``User.objects.get_by_natural_key``); renaming it in the admin to a
free name gives it a key again.
"""

import logging

from django.db import migrations, models

from accounts.usernames import canonical, skeleton

logger = logging.getLogger(__name__)


def fill(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    held = set()
    for user in User.objects.order_by("pk").iterator():
        key = canonical(user.username)
        if key in held:
            logger.warning(
                "account %s (%r) has the username key of an older account: it logs in by its exact name, and gets a key when renamed to a free one",
                user.pk,
                user.username,
            )
            key = None
        else:
            held.add(key)
        User.objects.filter(pk=user.pk).update(
            username_key=key, username_skeleton=skeleton(user.username)
        )


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="user",
            name="username_key",
            field=models.CharField(editable=False, max_length=600, null=True),
        ),
        migrations.AddField(
            model_name="user",
            name="username_skeleton",
            field=models.CharField(default="", editable=False, max_length=600),
            preserve_default=False,
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
