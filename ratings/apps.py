from django.apps import AppConfig


class RatingsConfig(AppConfig):
    """Ratings derived from finished games, and the leaderboards built on them."""

    name = "ratings"
