"""Account pages: sign-up here; log-in, log-out and password change are Django's own views."""

from django.contrib.auth import login
from django.http import HttpResponse
from django.urls import reverse_lazy
from django.views.generic import CreateView

from accounts.forms import SignUpForm


class SignUpView(CreateView):
    form_class = SignUpForm
    template_name = "accounts/signup.html"
    success_url = reverse_lazy("home")

    def form_valid(self, form: SignUpForm) -> HttpResponse:
        response = super().form_valid(form)
        # Signed up means signed in: a new player should not type the password twice.
        login(self.request, self.object, backend="django.contrib.auth.backends.ModelBackend")
        return response
