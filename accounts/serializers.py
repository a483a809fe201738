"""Shapes of the auth API's requests and answers (PROTOCOL.md, REST API)."""

from rest_framework import serializers


class RegisterInput(serializers.Serializer):
    username = serializers.RegexField(
        r"^[\w.@+-]+\Z",
        max_length=150,
        error_messages={"invalid": "Use letters, digits and @ . + - _ only."},
    )
    password = serializers.CharField(max_length=128, trim_whitespace=False)
    email = serializers.EmailField()


class RegisterOutput(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    token = serializers.CharField()


class TokenInput(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, trim_whitespace=False)


class TokenOutput(serializers.Serializer):
    token = serializers.CharField()


class ErrorOutput(serializers.Serializer):
    error = serializers.CharField()
    message = serializers.CharField()
