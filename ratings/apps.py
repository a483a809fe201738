from django.apps import AppConfig


class RatingsConfig(AppConfig):
    """Ratings derived from finished games, and the leaderboards built on them."""

    name = "ratings"

    def ready(self) -> None:
        # games announces finished games through its hook registry and never imports ratings
        # (DESIGN.md); this is where ratings starts listening, and where it gives games the
        # reader of a finished table's rating changes.
        from games import finalization, game_over
        from ratings.game_over import table_rating_changes
        from ratings.services import rating_finalize

        finalization.register("ratings")(rating_finalize)
        game_over.register_ratings_reader(table_rating_changes)
