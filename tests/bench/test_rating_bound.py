"""bench/rating_bound.py: the exact likelihood of a finishing order, and a quick run."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bench import rating_bound as rb
from bench.rating_quality import points_per_skill

ROOT = Path(__file__).resolve().parent.parent.parent
SCALE = 200.0 * math.sqrt(3.0) / math.pi * points_per_skill(200.0)


@pytest.mark.parametrize(("above", "below"), [(1, 2), (3, 4), (0, 1)])
def test_among_equals_every_order_is_as_likely_as_any(above: int, below: int) -> None:
    got = rb.order_likelihood(np.array([0.0]), [0.0] * above, [0.0] * below, SCALE)[0]
    assert got == pytest.approx(1 / math.factorial(above + below + 1), rel=0.04)


def test_a_stronger_player_is_likelier_to_have_finished_above() -> None:
    skills = np.array([-300.0, 0.0, 300.0])
    first = rb.order_likelihood(skills, [], [0.0], SCALE)
    assert list(first) == sorted(first) and first[1] == pytest.approx(0.5, abs=0.01)
    last = rb.order_likelihood(skills, [0.0], [], SCALE)
    assert first + last == pytest.approx(np.ones(3), abs=0.01)  # two players: one of the two


def test_the_drift_kernel_is_a_normalised_bell() -> None:
    kernel = rb.drift_kernel(40.0)
    assert kernel.sum() == pytest.approx(1.0)
    assert kernel[len(kernel) // 2] == kernel.max()
    assert list(kernel) == list(kernel[::-1])


def test_a_quick_run_prints_the_bound() -> None:
    out = subprocess.run(
        [sys.executable, "bench/rating_bound.py", "--quick"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    figures = json.loads(out.stdout)
    pooled = figures["pooled"]
    assert pooled["newcomers"] > 100
    assert 1 <= pooled["games_to_within_100_median"] <= 20
    assert 0.0 <= pooled["not_within_100_share"] < 1.0
    assert figures["per_population"][0]["seed"] == 1
