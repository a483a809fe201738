from django.urls import path

from ratings import apis

urlpatterns = [
    path("leaderboard/", apis.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("players/<str:username>/", apis.PlayerApi.as_view(), name="api-player"),
]
