"""Ratings in the admin, to look at only: every row is derived from finished games, changes
through the finalization hook alone, and ``ratings_recompute`` rebuilds it."""

from __future__ import annotations

from django.contrib import admin

from games.admin import ViewOnlyAdmin
from ratings.models import Pool, RatedGame, Rating, RatingChange


@admin.register(Pool)
class PoolAdmin(ViewOnlyAdmin):
    list_display = ["__str__", "kind", "ruleset", "club"]
    list_filter = ["kind"]
    list_select_related = ["ruleset", "club"]


@admin.register(Rating)
class RatingAdmin(ViewOnlyAdmin):
    list_display = ["user", "pool", "rating", "games", "peak", "last_played_at"]
    list_filter = ["pool"]
    list_select_related = ["user", "pool__ruleset", "pool__club"]
    search_fields = ["user__username"]
    # The leaderboard's own order, which its index serves.
    ordering = ["pool", "-rating", "user"]
    show_full_result_count = False


@admin.register(RatedGame)
class RatedGameAdmin(ViewOnlyAdmin):
    list_display = ["id", "table", "counted", "finished_at", "rated_at"]
    list_filter = ["counted"]
    list_select_related = ["table"]
    show_full_result_count = False


@admin.register(RatingChange)
class RatingChangeAdmin(ViewOnlyAdmin):
    list_display = ["table", "pool", "user", "place", "table_size", "before", "after", "k", "at"]
    list_filter = ["pool", "table_size"]
    list_select_related = ["user", "pool__ruleset", "pool__club", "table"]
    search_fields = ["user__username"]
    ordering = ["-game"]
    show_full_result_count = False
