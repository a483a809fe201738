"""Fixtures of the clock tests (tests/games/test_clock*.py): time under the test's control, and
the Celery tasks the services send, recorded instead of sent."""

import pytest

from tests.games.clocks import FakeTime, Sends, freeze, record_sends


@pytest.fixture
def now(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    """``django.utils.timezone.now`` frozen at ``clocks.T0``, moved on by ``now.advance``."""
    return freeze(monkeypatch)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> Sends:
    """Every task the code under test sends, recorded (nothing reaches a broker)."""
    return record_sends(monkeypatch)
