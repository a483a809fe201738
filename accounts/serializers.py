"""Shapes of the auth API's requests and answers (PROTOCOL.md, REST API)."""

from rest_framework import serializers

from accounts import payloads
from accounts.models import User
from config.payloads import serializer_for


class RegisterInput(serializers.Serializer):
    username = serializers.RegexField(
        r"^[\w.@+-]+\Z",
        max_length=150,
        error_messages={"invalid": "Use letters, digits and @ . + - _ only."},
    )
    password = serializers.CharField(max_length=128, trim_whitespace=False)
    # Optional (PROTOCOL.md lists it, a bot may have none): left out, blank or null all mean no
    # address; one that is given must be valid.
    email = serializers.EmailField(
        max_length=254, required=False, allow_blank=True, allow_null=True
    )

    def validate_username(self, value: str) -> str:
        # Stored in NFKC, as Django's forms store names (a fullwidth n is n), which can lengthen it.
        name = User.normalize_username(value)
        if len(name) > 150:
            raise serializers.ValidationError("Ensure this field has no more than 150 characters.")
        return name

    def validate_email(self, value: str | None) -> str:
        return value or ""


class TokenInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


# The answers, from their one typed definition in accounts.payloads.
RegisterOutput = serializer_for(payloads.RegisterOutput)
MeOutput = serializer_for(payloads.MeOutput)
TokenOutput = serializer_for(payloads.TokenOutput)
