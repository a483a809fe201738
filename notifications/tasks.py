"""The notifications' Celery task: a notice's email. Idempotent (the service notes what it
sent), retried with backoff when the database or the mail server is out of reach."""

from __future__ import annotations

import smtplib

from celery import shared_task
from django.db import InterfaceError, OperationalError

from notifications.queue import SEND_EMAIL
from notifications.services import notification_send_email


@shared_task(
    name=SEND_EMAIL,
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError, smtplib.SMTPException, OSError),
    retry_backoff=2,
    retry_backoff_max=600,
    retry_jitter=True,
    max_retries=8,
)
def send_email(notification_id: int) -> bool:
    return notification_send_email(notification_id)
