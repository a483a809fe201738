"""The ramp of ``bench/load.py``: tables are added step by step while the earlier ones play on.

Each step deals its new tables, opens their sockets (the older tables keep acting meanwhile, as
a club night's first tables do while late ones sit down), waits until every new seat has its
state, then measures a window of ``hold`` seconds. Nothing stops between steps, so the turn
timers (fired 30 s after each turn starts) run at the rate of the tables in play, not of a
step before, and no turn times out for want of a socket.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from bench import tables

Deal = Callable[[int], tables.Made]


def sizes(first: int, step: int, maximum: int) -> list[int]:
    """``first``, then every multiple of ``step`` above it, up to ``maximum``."""
    out = [first] if first <= maximum else []
    out += [n for n in range(step, maximum + 1, step) if n > first]
    return out


def healthy(step: dict[str, Any], limit_ms: float) -> bool:
    """A step is held when its p99 is within the limit and nothing was lost or cut off."""
    p99 = step["rtt_ms"]["p99"]
    lost = step["lost"] or step["closed_by_server"]
    return p99 is not None and p99 <= limit_ms and not lost and step["actions"] > 0


def stop_reason(step: dict[str, Any], limit_ms: float) -> str:
    if step["lost"] or step["closed_by_server"]:
        return f"actions lost at {step['tables']} tables"
    if not step["actions"]:
        return f"no action answered at {step['tables']} tables"
    return f"p99 {step['rtt_ms']['p99']} ms over {limit_ms:g} ms at {step['tables']} tables"


class Windows(tables.Run):
    """One run over the whole ramp with a tally per step: an answer counts in the step whose
    window its action was sent in, whenever it comes back."""

    def __init__(self, pace: float) -> None:
        super().__init__(pace)
        self.steps: list[tables.Run] = []
        self.marks: tuple[Counter[str], Counter[str], Counter[str]] | None = None

    def mark(self) -> None:
        """From here on errors, closed sockets and refused handshakes count in the next step."""
        self.marks = (Counter(self.errors), Counter(self.closed), Counter(self.refused))

    def open(self, hold: float) -> tables.Run:
        step = tables.Run(self.pace)
        step.start = self.start = time.perf_counter()
        step.end = self.end = step.start + hold
        self.steps.append(step)
        self.lags.clear()  # ``watch`` samples the loop's lag inside the window only
        return step

    def close(self, step: tables.Run) -> None:
        assert self.marks is not None
        errors, closed, refused = self.marks
        step.errors, step.closed = self.errors - errors, self.closed - closed
        step.refused, step.lags = self.refused - refused, list(self.lags)

    def done(self, sent: float, now: float) -> None:
        for step in self.steps:
            step.done(sent, now)  # each counts only what was sent in its own window

    def missed(self, sent: float) -> None:
        super().missed(sent)
        for step in self.steps:
            if step.start <= sent < step.end:
                step.missed(sent)


async def seat_more(
    run: Windows, groups: list[tables.Group], count: int, args: Any, deal: Deal
) -> None:
    """Deal ``count`` more tables (in a thread: Django's ORM is synchronous), open their sockets,
    wait until each seat has its state and their pushes are over, and let them play."""
    made = await asyncio.to_thread(deal, count)
    base = f"ws://127.0.0.1:{args.port}"
    new: list[tables.Group] = [tables.TableBots(run, base, t, keys) for t, keys in made]
    for group in new:
        group.seating = True
    await tables.open_all(run, new, args.port, args.compression)
    # A step's hundreds of connections are seconds of work for the server (each handshake,
    # token, subscription, first state and its seat's presence pushed to the table), while the
    # earlier tables play on. The new tables start once their pushes are over.
    await tables.settle(new)
    groups.extend(new)
    tables.stagger(new, time.perf_counter(), run.pace)
    for group in new:
        group.seating = False
        group.kick()


async def measure(
    run: Windows, groups: list[tables.Group], args: Any, meter: Any
) -> dict[str, Any]:
    """One window of ``args.hold`` seconds over every table in play, then until each action
    sent in it is answered or lost."""
    step = run.open(args.hold)
    metered = meter(args.server_pid, args.port, args.redis)
    await asyncio.sleep(args.hold)
    step.cpu = metered.figures(len(step.rtts))
    end = step.end + tables.LOST_SECONDS + 1.5
    in_flight = [s for g in groups for s in g.sockets]
    while any(s.sent is not None and s.sent < step.end for s in in_flight):
        if time.perf_counter() > end:
            break
        await asyncio.sleep(0.05)
    run.close(step)
    return {"tables": len(groups), "sockets": tables.SEATS * len(groups), **step.figures("actions")}


async def attempts(
    run: Windows, groups: list[tables.Group], args: Any, meter: Any, steps: list[dict[str, Any]]
) -> dict[str, Any]:
    """Measure the tables in play, again up to ``args.retries`` times while the step is not held:
    on a shared machine another user's burst of a second or two is enough to lift a p99. Every
    window is kept in ``steps`` (``attempt`` counts from 1); the last one decides."""
    for attempt in range(1, args.retries + 2):
        if attempt > 1:
            run.mark()
        step = await measure(run, groups, args, meter)
        step["attempt"] = attempt
        step["held"] = healthy(step, args.p99_limit)
        steps.append(step)
        if step["held"]:
            break
    return step


async def climb(args: argparse.Namespace, deal: Deal, meter: Any) -> dict[str, Any]:
    """Steps of more and more tables until one is not held."""
    run = Windows(tables.PACE_SECONDS)
    run.acting = True
    groups: list[tables.Group] = []
    watcher = asyncio.create_task(tables.watch(run, groups))
    steps: list[dict[str, Any]] = []
    reason = f"--max-tables {args.max_tables} reached"
    try:
        for size in sizes(args.first, args.step, args.max_tables):
            run.mark()
            await seat_more(run, groups, size - len(groups), args, deal)
            step = await attempts(run, groups, args, meter, steps)
            if not step["held"]:
                reason = stop_reason(step, args.p99_limit)
                break
    finally:
        await tables.wind_down(run, groups, watcher)
    return {"steps": steps, "stopped_because": reason}
