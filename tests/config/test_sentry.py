"""config/sentry.py: Sentry starts with a DSN (Django and Celery, no personal data), never
without one. tests/processes/test_settings.py checks that the settings call it."""

from __future__ import annotations

from typing import Any

import pytest
import sentry_sdk
from sentry_sdk.integrations.celery import CeleryIntegration
from sentry_sdk.integrations.django import DjangoIntegration

from config.sentry import init_sentry


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    made: list[dict[str, Any]] = []
    monkeypatch.setattr(sentry_sdk, "init", lambda **kwargs: made.append(kwargs))
    return made


def test_a_dsn_starts_sentry_for_django_and_celery(calls: list[dict[str, Any]]) -> None:
    dsn = "https://public@sentry.example/1"
    assert init_sentry(dsn=dsn, environment="production", release="1.2", traces_sample_rate=0.0)
    [options] = calls
    assert (options["dsn"], options["environment"], options["release"]) == (
        dsn,
        "production",
        "1.2",
    )
    assert options["send_default_pii"] is False
    kinds = {type(integration) for integration in options["integrations"]}
    assert kinds == {DjangoIntegration, CeleryIntegration}


def test_without_a_dsn_nothing_starts(calls: list[dict[str, Any]]) -> None:
    assert not init_sentry(dsn="", environment="production", release=None, traces_sample_rate=0.0)
    assert calls == []
