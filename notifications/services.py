"""Notices: made once per user and key, pushed to the user's sockets and mailed after commit;
read; and each kind's email turned on or off.

The apps with news (games, tournaments) call ``notify`` inside their own transaction, so a
notice exists exactly when the change it tells of committed.
"""

from __future__ import annotations

from urllib.parse import urljoin

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from config.errors import BAD_REQUEST
from notifications.errors import NotificationError
from notifications.models import EmailSetting, Kind, Notification
from notifications.payloads import EmailSettingsOutput, ReadOutput
from notifications.push import on_commit_notification, on_commit_unread
from notifications.queue import on_commit_email
from notifications.selectors import email_settings, email_wanted, unread_count

TEXT_MAX = 300
LINK_MAX = 300
KEY_MAX = 120


def notify(*, user: User, kind: str, text: str, link: str, key: str) -> Notification | None:
    """Tell ``user`` of ``kind`` in ``text`` (plain text; runs of white space become one
    space), leading to ``link`` (a path on this site). One notice per user and ``key``: the
    first call makes it and returns it, and after commit it is pushed to the user's sockets
    and its email is queued; a later call (or a concurrent one) returns None and does nothing.

    The insert runs in a savepoint (``get_or_create``): on PostgreSQL a concurrent insert of the
    same key waits for the first to commit, then finds its row, so the caller's transaction
    goes on either way.

    :raises NotificationError: ``bad_request`` for an unknown kind, an empty or too long text,
        a link that is not a path, or an empty or too long key.
    """
    text = " ".join(text.split())
    _check(kind, text, link, key)
    notice, created = Notification.objects.get_or_create(
        user=user, key=key, defaults={"kind": kind, "text": text, "link": link}
    )
    if not created:
        return None
    on_commit_notification(notice)
    on_commit_email(notice.pk)
    return notice


def _check(kind: str, text: str, link: str, key: str) -> None:
    if kind not in Kind.values:
        raise NotificationError(BAD_REQUEST, f"kind: one of {', '.join(Kind.values)}")
    if not 1 <= len(text) <= TEXT_MAX:
        raise NotificationError(BAD_REQUEST, f"text: 1 to {TEXT_MAX} characters")
    # A path only: "//host", or "/\host" (browsers read a backslash as "/"), leads off the site.
    if not link.startswith("/") or link[1:2] in ("/", "\\") or len(link) > LINK_MAX:
        raise NotificationError(BAD_REQUEST, "link: a path on this site, starting with /")
    if not 1 <= len(key) <= KEY_MAX:
        raise NotificationError(BAD_REQUEST, f"key: 1 to {KEY_MAX} characters")


def notifications_mark_read(*, user: User, ids: object = None) -> ReadOutput:
    """Mark ``user``'s unread notices read: those of ``ids`` (a list of ids; ids of notices
    that are not theirs are passed over), or all of them when ``ids`` is None. After commit the
    new unread count is pushed to the user's sockets.

    :raises NotificationError: ``bad_request`` when ``ids`` is not a list of whole numbers.
    """
    rows = Notification.objects.filter(user=user, read_at__isnull=True)
    if ids is not None:
        if not isinstance(ids, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in ids
        ):
            raise NotificationError(BAD_REQUEST, "ids: a list of notification ids")
        rows = rows.filter(pk__in=ids)
    with transaction.atomic():
        marked = rows.update(read_at=timezone.now())
        if marked:
            on_commit_unread(user.pk)
    return {"marked": marked, "unread": unread_count(user.pk)}


def email_settings_update(*, user: User, email: object) -> EmailSettingsOutput:
    """Turn each named kind's email on (true) or off (false) for ``user``; kinds left out keep
    theirs. Returns every kind's setting.

    :raises NotificationError: ``bad_request`` for something other than an object of kinds
        and true or false.
    """
    if not isinstance(email, dict):
        raise NotificationError(BAD_REQUEST, "email: an object of kinds, each true or false")
    unknown = sorted(set(email) - set(Kind.values))
    if unknown:
        raise NotificationError(BAD_REQUEST, f"email: unknown kind {', '.join(unknown)}")
    for kind, on in email.items():
        if not isinstance(on, bool):
            raise NotificationError(BAD_REQUEST, f"email.{kind}: must be true or false")
    with transaction.atomic():
        for kind, on in email.items():
            EmailSetting.objects.update_or_create(user=user, kind=kind, defaults={"email": on})
    return email_settings(user)


def notification_send_email(notification_id: int) -> bool:
    """Send the email of one notice, unless its user turned that kind off, has no address, or
    it was sent already; True if it was sent. The row is locked while sending, so a task
    delivered twice sends once (a crash between the send and the commit may send it again:
    at least once, as the broker delivers)."""
    with transaction.atomic():
        notice = (
            Notification.objects.select_for_update()
            .select_related("user")
            .filter(pk=notification_id)
            .first()
        )
        if notice is None or notice.emailed_at is not None:
            return False
        user = notice.user
        if not user.email or not user.is_active or not email_wanted(user.pk, notice.kind):
            return False
        send_mail(
            subject=f"Rummy 500: {Kind(notice.kind).label}",
            message=email_body(notice),
            from_email=None,  # DEFAULT_FROM_EMAIL
            recipient_list=[user.email],
        )
        notice.emailed_at = timezone.now()
        notice.save(update_fields=["emailed_at"])
    return True


def absolute(path: str) -> str:
    """``path`` on this site as an absolute URL (``SITE_URL``: an email has no request)."""
    return urljoin(settings.SITE_URL, path)


def email_body(notice: Notification) -> str:
    """The plain-text body: the notice, its absolute link, and where to turn it off."""
    context = {
        "user": notice.user,
        "text": notice.text,
        "url": absolute(notice.link),
        "settings_url": absolute(reverse("notifications:settings")),
        "kind": Kind(notice.kind).label,
    }
    return render_to_string("notifications/email.txt", context)
