"""Account pages: a throttled sign-up and a throttled log-in here; log-out and password change
are Django's own views."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.urls import reverse_lazy
from django.views.generic import CreateView

from accounts.forms import SignUpForm
from accounts.login_guard import login_blocked, login_failed, login_succeeded
from accounts.models import User
from config.throttles import SignUpThrottle, page_wait


class SignUpView(CreateView):
    form_class = SignUpForm
    template_name = "accounts/signup.html"
    success_url = reverse_lazy("home")

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        """Past the new accounts one address may open (``SignUpThrottle``, the API's too), the
        page comes back with the reason and 429, and no account is made."""
        wait = page_wait(request, SignUpThrottle)
        if wait is None:
            return super().post(request, *args, **kwargs)
        self.object = None
        form = self.form_class(initial={"username": request.POST.get("username", "")})
        context = self.get_context_data(form=form, wait_minutes=math.ceil(wait / 60))
        response = self.render_to_response(context, status=429)
        response["Retry-After"] = str(wait)
        return response

    def form_valid(self, form: forms.ModelForm[User]) -> HttpResponse:
        response = super().form_valid(form)
        # Signed up means signed in: a new player should not type the password twice.
        login(self.request, self.object, backend="django.contrib.auth.backends.ModelBackend")
        return response


class LoginView(auth_views.LoginView):
    """Django's log-in page, with failed attempts counted per address and per username
    (accounts.login_guard): past the limit the page comes back with the reason and 429, and no
    password is checked until the window ends."""

    template_name = "accounts/login.html"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        username = request.POST.get("username", "")
        wait = login_blocked(request, username)
        if wait is None:
            return super().post(request, *args, **kwargs)
        form = self.form_class(request, initial={"username": username})
        context = self.get_context_data(form=form, locked_minutes=math.ceil(wait / 60))
        response = self.render_to_response(context, status=429)
        response["Retry-After"] = str(wait)
        return response

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        login_failed(self.request, form.data.get("username", ""))
        return super().form_invalid(form)

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        login_succeeded(self.request, form.get_user().get_username())
        return super().form_valid(form)
