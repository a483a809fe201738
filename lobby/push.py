"""Quick play's pushes to the lobby sockets, after commit: the pools' counts to everyone, and
``matched`` to each matched player's own lobby sockets (groups of ``games.push``)."""

from __future__ import annotations

from django.db import transaction

from config.push import group_send_many
from games.push import LOBBY_GROUP, lobby_user_group
from lobby.models import PoolEntry
from lobby.selectors import pool_counts, pool_me_of


def push_pools() -> None:
    group_send_many([(LOBBY_GROUP, {"type": "lobby.pools", "pools": pool_counts()})])


def on_commit_pools() -> None:
    transaction.on_commit(push_pools)


def on_commit_matched(tables: list[tuple[int, list[int]]]) -> None:
    """After commit: ``{"type": "matched", "table": ID}`` to the lobby sockets of each player
    of each ``(table id, user ids)``."""

    def send() -> None:
        group_send_many(
            [
                (lobby_user_group(user_id), {"type": "lobby.matched", "table": table_id})
                for table_id, user_ids in tables
                for user_id in user_ids
            ]
        )

    if tables:
        transaction.on_commit(send)


def on_commit_me(user_ids: list[int]) -> None:
    """After commit: each player's place in quick play (``me``) to their own lobby sockets, so
    every page of theirs shows it (waiting, or no longer)."""

    def send() -> None:
        entries = PoolEntry.objects.in_bulk(user_ids)
        group_send_many(
            [
                (
                    lobby_user_group(user_id),
                    {"type": "lobby.me", "me": pool_me_of(entries.get(user_id))},
                )
                for user_id in user_ids
            ]
        )

    if user_ids:
        transaction.on_commit(send)
