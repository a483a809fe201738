"""The admin: who waits in which quick-play pool, view only.

Waiting and matching change only through ``lobby.services`` (which holds the pools' row
locks), so the admin shows them and changes nothing.
"""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from lobby.models import PoolEntry


@admin.register(PoolEntry)
class PoolEntryAdmin(admin.ModelAdmin):
    list_display = ("user", "status", "ruleset", "seats", "turn_seconds", "rating", "joined_at")
    list_filter = ("status", "ruleset", "seats", "turn_seconds")
    search_fields = ("user__username",)
    raw_id_fields = ("user", "table")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
