"""Check every table against its log: ``python manage.py tables_verify`` (docs/backup.md).

The log is the truth (DESIGN.md decision 7): a table's snapshot, version and written results
must all be what replaying its log gives. After restoring a backup, after a crash, or at any
time, this replays each table and reports where the stored rows depart from the replay:

- the log's versions run 1, 2, ... up to the table's ``version``, with no gap;
- the snapshot equals the rebuild (``table_mismatch``), and the engine accepts every logged step;
- the last finished hand's summary (``Table.last_hand``) is the rebuild's;
- a finished game's ``GameResult`` lists the rebuilt hands, and its ``HandResult`` rows are the
  rebuilt hands' scores.

Tables with no log (not started yet, or a face-to-face game whose results were entered by
hand) have nothing to replay and are counted as ``empty``. The digest is a SHA-256 over every
table's id, version and rebuilt state, in id order: two databases with the same digest rebuild
identical tables.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from games.engine.errors import EngineError
from games.engine.views import full_state
from games.models import GameResult, HandResult, Table, TableEvent
from games.selectors import table_rebuild_with_last_hand

CHUNK = 200  # tables read at a time: memory stays flat however many there are


@dataclass
class Verification:
    """What ``tables_verify`` found: counts, each problem as a line, and the digest."""

    tables: int = 0
    replayed: int = 0
    empty: int = 0
    problems: list[str] = field(default_factory=list)
    digest: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def verify_tables(tables: Iterable[Table] | None = None) -> Verification:
    """Replay ``tables`` (default: every table, in id order) and compare; see the module."""
    found = Verification()
    digest = hashlib.sha256()
    for table in _each(tables):
        found.tables += 1
        state, problems = verify_table(table)
        found.problems += problems
        if state is None and not table.version:
            found.empty += 1
            continue
        found.replayed += 1
        digest.update(_canonical([table.pk, table.version, state]))
    found.digest = digest.hexdigest()
    return found


def _each(tables: Iterable[Table] | None) -> Iterator[Table]:
    if tables is not None:
        yield from tables
        return
    yield from Table.objects.order_by("pk").iterator(chunk_size=CHUNK)


def verify_table(table: Table) -> tuple[dict[str, Any] | None, list[str]]:
    """The rebuilt full state (None when the log is empty or refused) and the problems found."""
    problems = _version_problems(table)
    try:
        rebuilt, last_hand = table_rebuild_with_last_hand(table, upto=table.version)
    except (EngineError, ValueError, KeyError, TypeError) as exc:
        return None, [*problems, f"table {table.pk}: the log does not replay ({exc})"]
    state = None if rebuilt is None else full_state(rebuilt)
    if last_hand != table.last_hand:
        problems.append(f"table {table.pk}: the last hand's summary differs from the rebuild's")
    if state != table.state:
        problems.append(_snapshot_problem(table, state))
    elif state is not None and table.status == Table.Status.FINISHED:
        problems += _result_problems(table, state)
    return state, problems


def _version_problems(table: Table) -> list[str]:
    versions = list(
        TableEvent.objects.filter(table=table).order_by("version").values_list("version", flat=True)
    )
    if versions == list(range(1, table.version + 1)):
        return []
    missing = sorted(set(range(1, table.version + 1)) - set(versions))
    extra = sorted(v for v in versions if v > table.version)
    return [
        f"table {table.pk} v{table.version}: log versions do not run 1..{table.version} "
        f"(missing {_few(missing)}, beyond the table's version {_few(extra)})"
    ]


def _snapshot_problem(table: Table, state: dict[str, Any] | None) -> str:
    snapshot = table.state
    if state is None or snapshot is None:
        return f"table {table.pk}: snapshot {snapshot is not None}, rebuild {state is not None}"
    keys = sorted(k for k in state.keys() | snapshot.keys() if state.get(k) != snapshot.get(k))
    return f"table {table.pk} v{table.version}: snapshot and rebuild differ in {', '.join(keys)}"


def _result_problems(table: Table, state: dict[str, Any]) -> list[str]:
    """A finished game's written results against its rebuilt hands."""
    result = GameResult.objects.filter(table=table).first()
    if result is None:
        return [f"table {table.pk}: finished without a result"]
    problems = []
    if result.hands != state["hands"]:
        problems.append(f"table {table.pk}: the result's hands differ from the rebuild's")
    written = {
        (row.hand, row.player): (row.melded, row.in_hand, row.net, row.went_out)
        for row in HandResult.objects.filter(table=table)
    }
    expected = {
        (hand["number"], name): (s["melded"], s["in_hand"], s["net"], hand["went_out"] == name)
        for hand in state["hands"]
        for name, s in hand["scores"].items()
    }
    if written != expected:
        differ = sorted(
            k for k in written.keys() | expected.keys() if written.get(k) != expected.get(k)
        )
        problems.append(f"table {table.pk}: hand results differ from the rebuild at {_few(differ)}")
    return problems


def _few(items: list[Any], limit: int = 5) -> str:
    shown = ", ".join(map(str, items[:limit])) or "none"
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()
