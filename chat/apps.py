from django.apps import AppConfig


class ChatConfig(AppConfig):
    """Chat rooms (a table's players, its spectators, an event): messages, mutes, deletion and
    rooms turned off.

    It knows nothing of tables or events: the apps that own a room decide who may read, write
    and moderate it, and call this app's services.
    """

    name = "chat"
