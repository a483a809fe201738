"""The events REST API, under /api/."""

from django.urls import path

from tournaments import apis, apis_results, apis_seeding

_EVENT = "events/<slug:slug>/"

urlpatterns = [
    path("events/", apis.EventListApi.as_view(), name="api-events"),
    path(_EVENT, apis.EventDetailApi.as_view(), name="api-event"),
    path(_EVENT + "standings/", apis.StandingsApi.as_view(), name="api-event-standings"),
    path(_EVENT + "rounds/", apis.RoundsApi.as_view(), name="api-event-rounds"),
    path(_EVENT + "entries/", apis.EntriesApi.as_view(), name="api-event-entries"),
    path(_EVENT + "seeding/", apis_seeding.SeedingApi.as_view(), name="api-event-seeding"),
    path(_EVENT + "bracket/", apis.BracketApi.as_view(), name="api-event-bracket"),
    path(
        _EVENT + "announcements/",
        apis.AnnouncementsApi.as_view(),
        name="api-event-announcements",
    ),
    path(_EVENT + "register/", apis.RegisterApi.as_view(), name="api-event-register"),
    path(_EVENT + "withdraw/", apis.WithdrawApi.as_view(), name="api-event-withdraw"),
    path(_EVENT + "check-in/", apis.CheckInApi.as_view(), name="api-event-check-in"),
    path(
        _EVENT + "open-registration/",
        apis.OpenRegistrationApi.as_view(),
        name="api-event-open-registration",
    ),
    path(_EVENT + "open-check-in/", apis.OpenCheckInApi.as_view(), name="api-event-open-check-in"),
    path(_EVENT + "close/", apis.CloseWindowApi.as_view(), name="api-event-close"),
    path(_EVENT + "start/", apis.StartApi.as_view(), name="api-event-start"),
    path(_EVENT + "pause/", apis.PauseApi.as_view(), name="api-event-pause"),
    path(_EVENT + "resume/", apis.ResumeApi.as_view(), name="api-event-resume"),
    path(_EVENT + "cancel/", apis.CancelApi.as_view(), name="api-event-cancel"),
    path(_EVENT + "announce/", apis.AnnounceApi.as_view(), name="api-event-announce"),
    path(
        _EVENT + "entries/<int:entry_id>/withdraw/",
        apis.EntryWithdrawApi.as_view(),
        name="api-event-entry-withdraw",
    ),
    path(
        _EVENT + "entries/<int:entry_id>/disqualify/",
        apis.EntryDisqualifyApi.as_view(),
        name="api-event-entry-disqualify",
    ),
    path(
        _EVENT + "tables/<int:round_table_id>/adjudicate/",
        apis.AdjudicateApi.as_view(),
        name="api-event-table-adjudicate",
    ),
    path(
        _EVENT + "tables/<int:round_table_id>/result/",
        apis_results.ResultApi.as_view(),
        name="api-event-table-result",
    ),
    path(
        _EVENT + "tables/<int:round_table_id>/retry/",
        apis_results.RetryApi.as_view(),
        name="api-event-table-retry",
    ),
    path(
        _EVENT + "rounds/<int:round_id>/reseat/",
        apis.ReseatApi.as_view(),
        name="api-event-round-reseat",
    ),
    path(
        _EVENT + "rounds/<int:round_id>/start/",
        apis.RoundStartApi.as_view(),
        name="api-event-round-start",
    ),
]
