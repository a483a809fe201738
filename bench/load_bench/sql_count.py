"""Statements each process sends to PostgreSQL, for ``bench/load.py``: never loaded by the site.

PostgreSQL's own counter, ``pg_stat_statements``, must be in ``shared_preload_libraries``, which
takes a restart of a server other users share; ``pg_stat_database`` counts transactions, not
statements, and its figures reach the view up to seconds late. So each process counts what
Django sends instead: with ``BENCH_SQL_COUNT`` set to a folder, every database connection gets an
``execute_wrapper`` that counts its queries (``BEGIN`` and ``COMMIT`` are not queries), and a
thread writes the process's total to ``<folder>/<pid>`` every ``FLUSH_SECONDS``. ``total(folder)``
adds the files up.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

ENV = "BENCH_SQL_COUNT"
FLUSH_SECONDS = 0.1

_lock = threading.Lock()
_count = [0]
_writer: list[int] = []  # the pid whose writer thread runs (a forked child has none)


def _reset_after_fork() -> None:
    """A forked child (a Celery pool process) starts from zero with no writer of its own."""
    global _lock
    _lock = threading.Lock()
    _count[0] = 0
    _writer.clear()


def count(execute: Any, sql: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
    with _lock:
        _count[0] += 1
    return execute(sql, params, many, context)


def _write(folder: Path) -> None:
    """Keep ``<folder>/<pid>`` at this process's count, replaced whole (never read half made)."""
    pid, written = os.getpid(), -1
    target, scratch = folder / str(pid), folder / f".{pid}"
    while True:
        now = _count[0]
        if now != written:
            scratch.write_text(str(now))
            os.replace(scratch, target)
            written = now
        time.sleep(FLUSH_SECONDS)


def _on_connect(sender: Any, connection: Any, **_: Any) -> None:
    """Wrap every new connection (once: a reconnect keeps the wrapper object's list)."""
    if count not in connection.execute_wrappers:
        connection.execute_wrappers.append(count)
    if not _writer:
        _writer.append(os.getpid())
        folder = Path(os.environ[ENV])
        threading.Thread(target=_write, args=(folder,), daemon=True, name="sql-count").start()


def install() -> None:
    """Count from now on in this process and its forks, when ``BENCH_SQL_COUNT`` is set."""
    if not os.environ.get(ENV):
        return
    from django.db.backends.signals import connection_created

    os.register_at_fork(after_in_child=_reset_after_fork)
    connection_created.connect(_on_connect, dispatch_uid="bench-sql-count")


def total(folder: Path) -> int:
    """Statements counted so far by every process writing to ``folder``."""
    return sum(int(path.read_text() or 0) for path in folder.glob("[0-9]*"))


install()
