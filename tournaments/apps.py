from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Events: registration, formats, rounds that run themselves, organizer tools."""

    name = "tournaments"

    def ready(self) -> None:
        # games announces finished games through its hook registry and never imports this app
        # (DESIGN.md): an event's table result arrives here, and the event's organizers manage
        # its tables (pause, resume) as staff do.
        from games import finalization
        from tournaments.access import register_table_managers
        from tournaments.chat_rooms import register_event_room
        from tournaments.rounds import event_finalize

        finalization.register("tournaments")(event_finalize)
        register_table_managers()
        register_event_room()  # who reads, writes and moderates an event's chat
