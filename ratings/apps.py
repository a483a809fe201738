from django.apps import AppConfig


class RatingsConfig(AppConfig):
    """Ratings derived from finished games, and the leaderboards built on them."""

    name = "ratings"

    def ready(self) -> None:
        # games announces finished games through its hook registry and never imports ratings
        # (DESIGN.md); this is where ratings starts listening.
        from games import finalization
        from ratings.services import rating_finalize

        finalization.register("ratings")(rating_finalize)
