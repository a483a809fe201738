from django.contrib.auth.forms import UserCreationForm

from accounts.models import User


class SignUpForm(UserCreationForm):
    """Django's sign-up form for our user model, asking for an email address too."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")
