"""Quick play's REST API, under /api/."""

from django.urls import path

import lobby.apis as apis

urlpatterns = [
    path("pools/", apis.PoolListApi.as_view(), name="api-pools"),
    path("pools/join/", apis.PoolJoinApi.as_view(), name="api-pools-join"),
    path("pools/me/", apis.PoolMeApi.as_view(), name="api-pools-me"),
]
