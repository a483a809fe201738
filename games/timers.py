"""Hand-offs to Celery after commit: a turn's timer, a finished game's finalization and the
end of a rematch offer.

Tasks are sent by name (``config.celery.app.send_task``), so the services need not import the
task module, which imports them. A send that fails (the broker down) is logged and dropped, never
raised into a change that has already committed: the sweep (``games.tasks.sweep``) enforces every
overdue turn and sends again every finished game whose finalization has not run.
"""

from __future__ import annotations

from datetime import datetime

from django.db import transaction

from config.celery import app
from games.models import Table

ENFORCE_TURN = "games.tasks.enforce_turn"
FINALIZE_GAME = "games.tasks.finalize_game"
RUN_FINALIZER = "games.tasks.run_finalizer"
REMATCH_EXPIRED = "games.tasks.rematch_expired"

# A broker that does not answer holds a request up this little; the sweep covers a lost send.
_PUBLISH_RETRY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}


def send(name: str, args: tuple[object, ...], *, eta: datetime | None = None) -> None:
    """Publish task ``name`` with ``args`` (ids, versions and times: no card, nothing secret).

    Their text for the worker's logs is given, not left to Celery's ``saferepr``, a general
    truncating repr that took about a sixth of the send's CPU (a send is once per turn): our
    arguments are a few short values, so the plain ``repr`` is the same text.
    """
    app.send_task(
        name,
        args,
        eta=eta,
        retry=True,
        retry_policy=_PUBLISH_RETRY,
        argsrepr=repr(args),
        kwargsrepr="{}",
    )


def send_timer(table_id: int, version: int, deadline: datetime) -> None:
    """Ask for ``enforce_turn`` at ``deadline``. It carries the deadline it was set for, which
    names the turn: a turn lasts several versions (draw, melds, discard) but has one deadline,
    until it ends or a pause moves it."""
    send(ENFORCE_TURN, (table_id, version, deadline.isoformat()), eta=deadline)


def on_commit_timer(table: Table) -> None:
    """After commit, the timer of the turn now running (none while paused or not playing)."""
    if (
        table.deadline is None
        or table.paused_at is not None
        or table.status != Table.Status.PLAYING
    ):
        return
    args = (table.pk, table.version, table.deadline)
    transaction.on_commit(lambda: send_timer(*args), robust=True)


def on_commit_finalize(table: Table) -> None:
    """After commit, run the finished game's finalization hooks (``games.finalization``)."""
    table_id = table.pk
    transaction.on_commit(lambda: send(FINALIZE_GAME, (table_id,)), robust=True)


def on_commit_rematch_expiry(table_id: int, expires: datetime) -> None:
    """After commit, a push of the table when its rematch offer expires. The expiry itself
    needs no task (``games.game_over.rematch_status`` reads the clock); this only tells the
    pages open on the table, so a lost send costs a stale page, never a wrong decision."""
    transaction.on_commit(lambda: send_rematch_expiry(table_id, expires), robust=True)


def send_rematch_expiry(table_id: int, expires: datetime) -> None:
    send(REMATCH_EXPIRED, (table_id, expires.isoformat()), eta=expires)
