"""One JSON error shape for the whole API: `{"error": CODE, "message": TEXT}`.

PROTOCOL.md answers refused actions with `{"error", "message"}`; every other API failure uses the
same shape so a client needs one error parser. Field errors add `"fields": {name: [messages]}`.
"""

from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from config.unavailable import RETRY_AFTER_SECONDS, is_unavailable, unavailable_body

# DRF's own exception classes, mapped to stable codes clients can switch on.
CODES: dict[type[exceptions.APIException], str] = {
    exceptions.ValidationError: "bad_request",
    exceptions.ParseError: "bad_request",
    exceptions.AuthenticationFailed: "not_authenticated",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


class ApiError(exceptions.APIException):
    """A refusal with its own protocol code, e.g. `username_taken`; `fields` names the fields at
    fault (`{"password": [messages]}`), as a validation error's body does."""

    def __init__(
        self,
        code: str,
        message: str,
        status_code: int = status.HTTP_400_BAD_REQUEST,
        headers: dict[str, str] | None = None,
        fields: dict[str, list[str]] | None = None,
    ) -> None:
        super().__init__(detail=message, code=code)
        self.code = code
        self.status_code = status_code
        self.headers = headers or {}
        self.fields = fields


def _first_message(detail: Any) -> str:
    """The first human-readable message in a (possibly nested) DRF error detail."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            message = _first_message(value)
            return message if key == "non_field_errors" else f"{key}: {message}"
    if isinstance(detail, list) and detail:
        return _first_message(detail[0])
    return str(detail)


def _code_for(kind: type[Exception]) -> str:
    return next((CODES[base] for base in kind.__mro__ if base in CODES), "error")


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if is_unavailable(exc):  # the database is out of reach: retryable (config.unavailable)
        headers = {"Retry-After": str(RETRY_AFTER_SECONDS)}
        return Response(
            unavailable_body(), status=status.HTTP_503_SERVICE_UNAVAILABLE, headers=headers
        )
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    code = exc.code if isinstance(exc, ApiError) else _code_for(type(exc))
    body: dict[str, Any] = {"error": code, "message": _first_message(exc.detail)}
    if isinstance(exc, exceptions.ValidationError) and isinstance(exc.detail, dict):
        body["fields"] = exc.detail
    if isinstance(exc, ApiError) and exc.fields:
        body["fields"] = exc.fields
    if isinstance(exc, exceptions.Throttled) and exc.wait is not None:
        body["retry_after"] = int(exc.wait + 0.999)
    if isinstance(exc, ApiError):
        for name, value in exc.headers.items():
            response[name] = value
    response.data = body
    return response


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Django's 404 handler (`handler404`): JSON in the API's error shape under /api/, so a
    client's error parser also reads a call to a path that matches no route (a slug the URL
    pattern refuses, a word where an id goes); the usual page everywhere else."""
    if request.path.startswith("/api/"):
        body = {"error": "not_found", "message": "No such API resource."}
        return JsonResponse(body, status=status.HTTP_404_NOT_FOUND)
    return defaults.page_not_found(request, exception)
