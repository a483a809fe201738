"""The REST API of rule sets and tables (PROTOCOL.md), under /api/."""

from django.urls import path

import games.apis as apis
import games.ruleset_views as ruleset_views

urlpatterns = [
    path("rulesets/", ruleset_views.RuleSetListApi.as_view(), name="api-rulesets"),
    path("rulesets/<slug:slug>/", ruleset_views.RuleSetDetailApi.as_view(), name="api-ruleset"),
    path("tables/", apis.TableListApi.as_view(), name="api-tables"),
    path("tables/<int:table_id>/", apis.TableDetailApi.as_view(), name="api-table"),
    path("tables/<int:table_id>/join/", apis.TableJoinApi.as_view(), name="api-table-join"),
    path("tables/<int:table_id>/leave/", apis.TableLeaveApi.as_view(), name="api-table-leave"),
    path("tables/<int:table_id>/start/", apis.TableStartApi.as_view(), name="api-table-start"),
    path("tables/<int:table_id>/pause/", apis.TablePauseApi.as_view(), name="api-table-pause"),
    path("tables/<int:table_id>/resume/", apis.TableResumeApi.as_view(), name="api-table-resume"),
    path("tables/<int:table_id>/back/", apis.TableBackApi.as_view(), name="api-table-back"),
    path("tables/<int:table_id>/actions/", apis.TableActionApi.as_view(), name="api-table-actions"),
    path(
        "tables/<int:table_id>/rematch/", apis.TableRematchApi.as_view(), name="api-table-rematch"
    ),
    path("tables/<int:table_id>/log/", apis.TableLogApi.as_view(), name="api-table-log"),
    path("tables/<int:table_id>/moves/", apis.TableMovesApi.as_view(), name="api-table-moves"),
    path("tables/<int:table_id>/replay/", apis.TableReplayApi.as_view(), name="api-table-replay"),
]
