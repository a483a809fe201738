"""The Celery app. Configuration comes from Django settings under the `CELERY_` prefix.

In full mode run `celery -A config worker` and `celery -A config beat` beside the web servers;
in embedded mode config/asgi.py runs both inside the server process (see config/embedded.py).
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("rummy500")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
