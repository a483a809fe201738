from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    """Events: registration, formats, rounds that run themselves, organizer tools."""

    name = "tournaments"

    def ready(self) -> None:
        # games announces finished games through its hook registry and never imports this app
        # (DESIGN.md): an event's table result arrives here, and the event's organizers manage
        # its tables (pause, resume) as staff do.
        from games import finalization
        from ratings.services import rated_listeners
        from tournaments.access import register_table_managers
        from tournaments.chat_rooms import register_event_room
        from tournaments.push import event_of_table_rated
        from tournaments.rounds import event_finalize
        from tournaments.stalls import tell_organizers

        finalization.register("tournaments")(event_finalize)
        # A hook given up for an event's table stalls the event: its organizers are told.
        finalization.on_given_up(tell_organizers)
        register_table_managers()
        register_event_room()  # who reads, writes and moderates an event's chat
        # A rated game of an event moves its players' ratings: the event's page shows them.
        if event_of_table_rated not in rated_listeners:
            rated_listeners.append(event_of_table_rated)
