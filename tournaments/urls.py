"""Pages: the events, an event's page and its live sections, CSV exports, the create form, and
the forms posted from the event page."""

from django.urls import path

from tournaments import views

app_name = "tournaments"

_EVENT = "events/<slug:slug>/"

urlpatterns = [
    path("events/", views.event_list_page, name="list"),
    path("events/new/", views.event_create, name="create"),
    path(_EVENT, views.event_page, name="detail"),
    path(_EVENT + "live/", views.event_live, name="live"),
    path("events/<slug:slug>/standings.csv", views.standings_csv, name="standings-csv"),
    path("events/<slug:slug>/results.csv", views.results_csv, name="results-csv"),
    path(
        _EVENT + "tables/<int:round_table_id>/adjudicate/",
        views.table_adjudicate,
        name="table-adjudicate",
    ),
    path(_EVENT + "tables/<int:round_table_id>/result/", views.table_result, name="table-result"),
    path(_EVENT + "tables/<int:round_table_id>/retry/", views.table_retry, name="table-retry"),
    path(_EVENT + "rounds/<int:round_id>/<str:action>/", views.round_post, name="round"),
    path(_EVENT + "<str:action>/", views.event_post, name="action"),
]
