"""Helpers of the notifications tests: what was pushed and queued instead of sending it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import connection

from notifications.models import Notification


@dataclass
class Outbox:
    """The notices pushed, the unread counts pushed, and the emails queued (notification ids),
    in order, across threads."""

    pushed: list[int] = field(default_factory=list)
    unread: list[int] = field(default_factory=list)
    queued: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def push(self, notice: Notification) -> None:
        with self.lock:
            self.pushed.append(notice.pk)

    def push_unread(self, user_id: int) -> None:
        with self.lock:
            self.unread.append(user_id)

    def send(self, name: str, args: tuple[Any, ...]) -> None:
        with self.lock:
            self.queued.append(args[0])


def record(monkeypatch: pytest.MonkeyPatch) -> Outbox:
    box = Outbox()
    monkeypatch.setattr("notifications.push.push_notification", box.push)
    monkeypatch.setattr("notifications.push.push_unread", box.push_unread)
    monkeypatch.setattr("notifications.queue.send", box.send)
    return box


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` at once in threads of their own (released by a barrier); each result or
    exception."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = calls[i]()
        except Exception as exc:
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def notices_of(username: str) -> list[Notification]:
    return list(Notification.objects.filter(user__username=username).order_by("id"))
