from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.models import Club, ClubMembership, User


class MembershipInline(admin.TabularInline):
    model = ClubMembership
    extra = 1
    autocomplete_fields = ["user"]


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Django's user admin, bound to our user model."""


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "created_at"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline]


@admin.register(ClubMembership)
class ClubMembershipAdmin(admin.ModelAdmin):
    list_display = ["club", "user", "role", "joined_at"]
    list_filter = ["role", "club"]
    search_fields = ["club__name", "user__username"]
    autocomplete_fields = ["club", "user"]
