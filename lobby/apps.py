from django.apps import AppConfig


class LobbyConfig(AppConfig):
    """Finding a game: quick-play pools that seat waiting players together, and the live lobby
    socket that lists open tables and games in play.

    It sits above games and ratings (it starts tables and reads ratings to match players).
    """

    name = "lobby"
