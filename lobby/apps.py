from django.apps import AppConfig


class LobbyConfig(AppConfig):
    """Finding a game: quick-play pools that seat waiting players together, and the live lobby
    socket that lists open tables and games in play.

    It sits above games and ratings (it starts tables and reads ratings to match players).
    """

    name = "lobby"

    def ready(self) -> None:
        # Logging out takes a player out of quick play (lobby.signals).
        from django.contrib.auth.signals import user_logged_out

        from lobby.signals import left_on_logout

        user_logged_out.connect(left_on_logout, dispatch_uid="lobby-logout")
