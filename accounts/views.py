"""Account pages: a throttled sign-up and a guarded log-in here; log-out and password change
are Django's own views."""

from __future__ import annotations

import math
from typing import Any

from django import forms
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse
from django.urls import reverse_lazy
from django.views.generic import CreateView

from accounts import services
from accounts.forms import LoginForm, SignUpForm
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
        # The form checked the name; a look-alike signing up at the same instant is seen here.
        try:
            with services.name_claimed(form.cleaned_data["username"]):
                response = super().form_valid(form)
        except services.UsernameTaken as exc:
            form.add_error("username", exc.message)
            return self.form_invalid(form)
        except IntegrityError:  # the very name's key, taken between the check and the insert
            form.add_error("username", services.UsernameTaken.TAKEN)
            return self.form_invalid(form)
        # Signed up means signed in: a new player should not type the password twice.
        login(self.request, self.object, backend="django.contrib.auth.backends.ModelBackend")
        return response


class LoginView(auth_views.LoginView):
    """Django's log-in page. The log-in guard (accounts.login_guard, through django-axes) counts
    its failures per address and per username; past the limit no password is checked, the form
    says why and the page answers 429 with ``Retry-After``."""

    template_name = "accounts/login.html"
    authentication_form = LoginForm
