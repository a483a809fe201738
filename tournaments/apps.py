from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Events: registration, pairings and brackets, rounds, standings and advancement."""

    name = "tournaments"
