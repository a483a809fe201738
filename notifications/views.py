"""Pages: a user's notices (with "mark all read") and their email settings."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from accounts.auth import signed_in
from notifications.forms import EmailSettingsForm
from notifications.selectors import email_settings, notifications_recent, unread_count
from notifications.services import email_settings_update, notifications_mark_read

#: The page lists this many, newest first (the API pages through all of them).
PAGE_SIZE = 50


@login_required
def notifications_list_page(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    context = {
        "notices": notifications_recent(user, PAGE_SIZE),
        "unread": unread_count(user.pk),
        "page_size": PAGE_SIZE,
    }
    return render(request, "notifications/list.html", context)


@login_required
@require_POST
def notifications_read_all(request: HttpRequest) -> HttpResponse:
    notifications_mark_read(user=signed_in(request))
    return redirect("notifications:list")


@login_required
@require_http_methods(["GET", "POST"])
def notifications_settings_page(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    if request.method == "POST":
        form = EmailSettingsForm(request.POST)
        if form.is_valid():
            email_settings_update(user=user, email=form.cleaned_data)
            messages.success(request, "Saved: your email settings.")
            return redirect("notifications:settings")
    else:
        form = EmailSettingsForm(initial=dict(email_settings(user)))
    return render(request, "notifications/settings.html", {"form": form})
