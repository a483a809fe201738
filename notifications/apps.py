from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """Notifications to a user: in the site (the bell, pushed over the user's socket) and by
    email (sent by Celery), with a setting per kind of email.

    It knows nothing of tables or events: the apps that have news call its services.
    """

    name = "notifications"
