"""Error reports to Sentry, when ``SENTRY_DSN`` is set (nothing is sent otherwise).

Called from the settings, so every process that loads them reports: the web servers (Django's
integration: unhandled errors of views and consumers, with the request but no personal data),
the Celery worker and beat (Celery's: a task that fails or exhausts its retries). Personal data
(addresses, cookies, user names) is never sent: ``send_default_pii`` stays off.
"""

from __future__ import annotations

import sentry_sdk
from sentry_sdk.integrations.celery import CeleryIntegration
from sentry_sdk.integrations.django import DjangoIntegration


def init_sentry(
    *, dsn: str, environment: str, release: str | None, traces_sample_rate: float
) -> bool:
    """Start reporting to ``dsn``; False (and nothing started) without one."""
    if not dsn:
        return False
    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        release=release,
        send_default_pii=False,
        # Performance traces are off unless asked for: errors are what this is for.
        traces_sample_rate=traces_sample_rate,
        integrations=[DjangoIntegration(), CeleryIntegration()],
    )
    return True
