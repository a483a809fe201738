"""The notifications REST API, under /api/."""

from django.urls import path

from notifications import apis

urlpatterns = [
    path("notifications/", apis.NotificationListApi.as_view(), name="api-notifications"),
    path("notifications/read/", apis.NotificationReadApi.as_view(), name="api-notifications-read"),
    path(
        "notifications/settings/",
        apis.NotificationSettingsApi.as_view(),
        name="api-notifications-settings",
    ),
]
