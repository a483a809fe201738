"""Pages: the notices and their email settings."""

from django.urls import path

from notifications import views

app_name = "notifications"

urlpatterns = [
    path("notifications/", views.notifications_list_page, name="list"),
    path("notifications/read/", views.notifications_read_all, name="read-all"),
    path("notifications/settings/", views.notifications_settings_page, name="settings"),
]
