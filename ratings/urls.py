"""Pages: the leaderboard, its CSV export and the players' pages."""

from django.urls import path

from ratings import views

app_name = "ratings"

urlpatterns = [
    path("leaderboard/", views.leaderboard, name="leaderboard"),
    path("leaderboard.csv", views.leaderboard_csv, name="leaderboard-csv"),
    path("players/<str:username>/", views.player_page, name="player"),
]
