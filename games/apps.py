from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Live tables: rule configurations, seats, state snapshots and the action log.

    The rules themselves live in `games.engine`, a pure library this app wraps.
    """

    name = "games"
