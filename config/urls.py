"""Top-level URLs: pages, the admin, the API (with its schema and docs) and the health probe."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from config.health import healthz
from config.metrics_view import metrics
from tournaments.home import home_page

urlpatterns = [
    path("", home_page, name="home"),
    path("accounts/", include("accounts.urls")),
    path("admin/", admin.site.urls),
    path("api/auth/", include("accounts.api_urls")),
    path("api/", include("games.api_urls")),
    path("api/", include("ratings.api_urls")),
    path("api/", include("tournaments.api_urls")),
    path("api/chat/", include("chat.api_urls")),
    path("api/", include("notifications.api_urls")),
    path("api/", include("lobby.api_urls")),
    path("", include("games.urls")),
    path("", include("ratings.urls")),
    path("", include("tournaments.urls")),
    path("", include("notifications.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics, name="metrics"),
]
