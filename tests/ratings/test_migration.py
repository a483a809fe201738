"""Issue 19's migration moves every stored rating to the new system: it adds the deviations and
replays the ledger, so a database rated by the old Elo comes out exactly as if every game had
been rated by the multiplayer Glicko-2."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from ratings.audit import stored_figures
from ratings.models import Rating, RatingChange
from tests.accounts.factories import UserFactory
from tests.ratings.games import T0, finished_game, rate

pytestmark = pytest.mark.django_db


# Outside a transaction: SQLite's schema editor cannot run inside one.
@pytest.mark.django_db(transaction=True)
def test_the_migration_recomputes_every_rating_with_the_new_system() -> None:
    users = [UserFactory() for _ in range(5)]
    for i in range(12):
        seated = [users[(i + k) % 5] for k in range(2 + i % 4)]
        rate(finished_game([(u, 1 + k) for k, u in enumerate(seated)], at=T0 + timedelta(days=i)))
    rated = stored_figures()
    assert len(rated["ratings"]) == 5 * 2  # everyone, in the global and the preset pool
    # What the old system left: other numbers (and no deviations: the columns did not exist).
    Rating.objects.update(rating=1234.5, peak=1600.0)
    RatingChange.objects.update(after=1234.5, k=60.0)

    executor = MigrationExecutor(connection)
    graph = executor.loader.graph
    # Found by name, so that renumbering the migration changes no test.
    ours = next(k for k in graph.nodes if k[0] == "ratings" and k[1].endswith("_deviation"))
    executor.migrate(sorted(p.key for p in graph.node_map[ours].parents if p.key[0] == "ratings"))
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([ours])
    migrated = stored_figures()
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())  # as the test found the database
    assert migrated == rated
