from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Live tables: rule configurations, seats, state snapshots and the action log.

    The rules themselves live in `games.engine`, a pure library this app wraps.
    """

    name = "games"

    def ready(self) -> None:
        # The chat app knows no tables: games tells it who reads and writes a table's rooms.
        from games.chat_rooms import register_table_rooms

        register_table_rooms()
