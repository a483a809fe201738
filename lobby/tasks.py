"""Quick play's periodic pass: windows widen with time, so pools are matched again between
joins, and waiters whose lobby sockets have all closed leave (``lobby.services.pools_sweep``)."""

from __future__ import annotations

from celery import shared_task

from lobby.services import pools_sweep


@shared_task(name="lobby.tasks.sweep_pools")
def sweep_pools() -> int:
    return pools_sweep()
