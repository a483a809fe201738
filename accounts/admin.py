from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin

from accounts.forms import AdminAddUserForm, AdminChangeUserForm, AdminLoginForm
from accounts.models import Club, ClubMembership, User

# The admin's log-in says why the log-in guard refused it (accounts.login_guard), as the page does.
admin.site.login_form = AdminLoginForm


class MembershipInline(admin.TabularInline):
    model = ClubMembership
    extra = 1
    autocomplete_fields = ["user"]


@admin.register(User)
class UserAdmin(DjangoUserAdmin):
    """Django's user admin, bound to our user model, holding names to accounts.usernames."""

    form = AdminChangeUserForm
    add_form = AdminAddUserForm


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
