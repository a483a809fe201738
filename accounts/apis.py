"""`POST /api/auth/register/` and `POST /api/auth/token/`, exactly as PROTOCOL.md gives them, and
`DELETE /api/auth/token/`, which revokes the caller's token.

Both take credentials in the body, so they run without session authentication (no CSRF token
needed) and are throttled per client address under the `auth` scope, and registration also
under `signup` (``config.throttles``, shared with the sign-up page). They read JSON, and also
form-encoded bodies (`curl -d username=...`). `GET /api/auth/me/` answers who the caller is, by
session or `Authorization: Token KEY`.
"""

from collections.abc import Sequence
from typing import Any

from django.http import HttpRequest
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import exceptions, status
from rest_framework.authentication import (
    BaseAuthentication,
    SessionAuthentication,
    TokenAuthentication,
)
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle
from rest_framework.views import APIView

from accounts import login_guard, services
from accounts.auth import signed_in
from accounts.serializers import (
    MeOutput,
    RegisterInput,
    RegisterOutput,
    TokenInput,
    TokenOutput,
)
from config.exceptions import ErrorOutput
from config.parsers import JSONParser
from config.throttles import SignUpThrottle


class AuthApi(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)
    parser_classes = (JSONParser, FormParser, MultiPartParser)
    throttle_classes: tuple[type[BaseThrottle], ...] = (ScopedRateThrottle,)
    throttle_scope = "auth"


class RegisterApi(AuthApi):
    # The auth scope's budget, and the new accounts per address the sign-up page counts too.
    throttle_classes = (ScopedRateThrottle, SignUpThrottle)

    @extend_schema(
        operation_id="auth_register",
        request=RegisterInput,
        responses={
            201: RegisterOutput,
            400: OpenApiResponse(ErrorOutput, description="bad_request or weak_password"),
            409: OpenApiResponse(ErrorOutput, description="username_taken"),
            429: OpenApiResponse(
                ErrorOutput, description="throttled (auth, or new accounts from your address)"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        data = RegisterInput(data=request.data)
        data.is_valid(raise_exception=True)
        user, token = services.user_register(**data.validated_data)
        body = RegisterOutput({"id": user.pk, "username": user.username, "token": token.key})
        return Response(body.data, status=status.HTTP_201_CREATED)


class TokenApi(AuthApi):
    """``POST`` trades credentials for the account's token; ``DELETE`` revokes the caller's
    token (by ``Authorization: Token KEY``, or a session with its CSRF token), so the next
    ``POST`` hands out a new one."""

    def initialize_request(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Request:
        self.revoking = request.method == "DELETE"
        return super().initialize_request(request, *args, **kwargs)

    def get_authenticators(self) -> list[BaseAuthentication]:
        if getattr(self, "revoking", False):
            return [TokenAuthentication(), SessionAuthentication()]
        return super().get_authenticators()

    def get_permissions(self) -> Sequence[Any]:
        if getattr(self, "revoking", False):
            return [IsAuthenticated()]
        return super().get_permissions()

    @extend_schema(
        operation_id="auth_token_revoke",
        request=None,
        responses={
            204: OpenApiResponse(description="The token is revoked."),
            401: OpenApiResponse(ErrorOutput, description="not_authenticated"),
            429: OpenApiResponse(ErrorOutput, description="throttled"),
        },
    )
    def delete(self, request: Request) -> Response:
        services.token_revoke(signed_in(request))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        operation_id="auth_token",
        request=TokenInput,
        responses={
            200: TokenOutput,
            400: OpenApiResponse(ErrorOutput, description="bad_request"),
            401: OpenApiResponse(ErrorOutput, description="invalid_credentials"),
            429: OpenApiResponse(ErrorOutput, description="throttled"),
        },
    )
    def post(self, request: Request) -> Response:
        data = TokenInput(data=request.data)
        data.is_valid(raise_exception=True)
        # The log-in guard (accounts.login_guard) holds here as on the pages: a locked name or
        # address is refused before any password is checked, in the API's error shape. A wrong
        # password is counted through django-axes (Django's ``user_login_failed`` signal).
        username = data.validated_data["username"]
        wait = login_guard.login_blocked(request, username)
        if wait is not None:
            raise exceptions.Throttled(wait=wait, detail="Too many failed log-ins.")
        token = services.token_for_credentials(request=request, **data.validated_data)
        login_guard.login_succeeded(request, username)
        return Response(TokenOutput({"token": token.key}).data)


class MeApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="auth_me",
        responses={
            200: MeOutput,
            401: OpenApiResponse(ErrorOutput, description="not_authenticated"),
        },
    )
    def get(self, request: Request) -> Response:
        user = signed_in(request)
        return Response(
            MeOutput({"id": user.pk, "username": user.username, "email": user.email}).data
        )
