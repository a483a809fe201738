"""config.ws_limit.TokenBucket: the per-connection rate limit's arithmetic, on a hand-moved clock.

The sockets' use of it (the error frame, the close, nothing processed) is tested through the
whole application in tests/hostile/test_ws_fuzz.py.
"""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.ws_limit import FLOOD_FACTOR, TokenBucket


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def test_a_burst_then_one_token_per_interval(clock: Clock) -> None:
    bucket = TokenBucket(3, 2.0, clock)
    assert [bucket.take() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.take() == pytest.approx(0.5)  # one token every half second
    clock.now += 0.2
    assert bucket.take() == pytest.approx(0.3)  # refused again: the wait shrinks, not resets
    clock.now += 0.3
    assert bucket.take() == 0.0
    assert bucket.take() == pytest.approx(0.5)


def test_an_idle_bucket_holds_one_burst_and_no_more(clock: Clock) -> None:
    bucket = TokenBucket(3, 2.0, clock)
    clock.now += 3600
    assert [bucket.take() for _ in range(4)][-1] > 0


def test_a_clock_that_steps_back_gives_nothing(clock: Clock) -> None:
    bucket = TokenBucket(1, 2.0, clock)
    bucket.take()
    clock.now -= 100
    assert bucket.take() == pytest.approx(0.5)
    clock.now += 0.5
    assert bucket.take() == 0.0


def test_flooding_is_refusals_outstanding_forgiven_at_the_refill_rate(clock: Clock) -> None:
    bucket = TokenBucket(2, 1.0, clock)
    bucket.take(), bucket.take()
    for _ in range(FLOOD_FACTOR * 2 - 1):
        bucket.take()
    assert not bucket.flooding
    clock.now += 1.0  # one refusal forgiven (and one token back, taken by the next frame)
    bucket.take()
    bucket.take()
    assert not bucket.flooding
    bucket.take()
    assert bucket.flooding


@pytest.mark.parametrize(("burst", "rate"), [(0, 10.0), (20, 0.0), (20, -1.0)])
def test_a_limit_that_would_refuse_everything_is_a_configuration_error(
    clock: Clock, burst: int, rate: float
) -> None:
    with pytest.raises(ImproperlyConfigured):
        TokenBucket(burst, rate, clock)
