"""Pages: the rule sets, the lobby and the table page."""

from django.urls import path

import games.ruleset_views as ruleset_views
import games.views as views

app_name = "games"

urlpatterns = [
    path("rules/", ruleset_views.ruleset_list_page, name="rulesets"),
    path("rules/<slug:slug>/", ruleset_views.ruleset_page, name="ruleset"),
    path("tables/", views.lobby, name="lobby"),
    path("tables/<int:table_id>/", views.table_page, name="table"),
    path("tables/<int:table_id>/replay/", views.table_replay_page, name="table-replay"),
    path("tables/<int:table_id>/join/", views.table_join, name="table-join"),
    path("tables/<int:table_id>/leave/", views.table_leave, name="table-leave"),
    path("tables/<int:table_id>/start/", views.table_start, name="table-start"),
]
