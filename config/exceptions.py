"""One JSON error shape for the whole API: `{"error": CODE, "message": TEXT}`.

PROTOCOL.md answers refused actions with `{"error", "message"}`; every other API failure uses the
same shape so a client needs one error parser. Field errors add `"fields": {name: [messages]}`.
This is the REST half of the one mapping of the services' refusals (`config.errors`): any
`ServiceError`, whichever app raised it, answers with its status and body here. Errors Django
answers itself (a path with no route, an exception DRF lets through) take the same shape under
/api/ in `config.error_pages`.
"""

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import (
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from config.errors import BAD_REQUEST, ServiceError
from config.unavailable import is_unavailable, unavailable_error

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


class ErrorOutput(serializers.Serializer):
    """The schema of every error body, whichever app or layer refused (the one mapping)."""

    error = serializers.CharField()
    message = serializers.CharField()
    # Present on refused input: each field at fault with its messages (nested for nested input).
    fields = serializers.DictField(required=False)  # type: ignore[assignment]  # named as Serializer.fields
    # Present on a 429: seconds before trying again (also the Retry-After header).
    retry_after = serializers.IntegerField(required=False)


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


def refused_request(exc: SuspiciousOperation) -> ServiceError:
    """What the API answers a request Django refuses to read: a body over
    ``DATA_UPLOAD_MAX_MEMORY_SIZE``, a form over ``DATA_UPLOAD_MAX_NUMBER_FIELDS`` fields or
    ``DATA_UPLOAD_MAX_NUMBER_FILES`` files. Django raises these when a view first reads the body,
    so DRF hands them here; it answers them 400 itself elsewhere. They are logged where Django
    logs them, on ``django.security.<name>``."""
    logging.getLogger(f"django.security.{type(exc).__name__}").error(str(exc))
    if isinstance(exc, RequestDataTooBig):
        message = f"the request body is over {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes"
    elif isinstance(exc, TooManyFieldsSent):
        message = f"the request has over {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields"
    elif isinstance(exc, TooManyFilesSent):
        message = f"the request has over {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files"
    else:
        message = "the request cannot be read"
    return ServiceError(BAD_REQUEST, message)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if is_unavailable(exc):  # the database is out of reach: retryable (config.unavailable)
        exc = unavailable_error()
    if isinstance(exc, SuspiciousOperation):
        exc = refused_request(exc)
    if isinstance(exc, ServiceError):
        return service_error_response(exc)
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    body: dict[str, Any] = {"error": _code_for(type(exc)), "message": _first_message(exc.detail)}
    if isinstance(exc, exceptions.ValidationError) and isinstance(exc.detail, dict):
        body["fields"] = exc.detail
    wait = getattr(exc, "wait", None)  # set by DRF's Throttled (its stubs do not declare it)
    if isinstance(exc, exceptions.Throttled) and wait is not None:
        body["retry_after"] = int(wait + 0.999)
    response.data = body
    return response


def service_error_response(error: ServiceError) -> Response:
    """A service's refusal as the API answers it: its status and body, and the headers HTTP
    asks for with that status."""
    headers = {}
    if error.status == status.HTTP_401_UNAUTHORIZED:
        headers["WWW-Authenticate"] = "Token"  # RFC 9110: a 401 names the scheme that would do
    if "retry_after" in error.extra:
        headers["Retry-After"] = str(error.extra["retry_after"])
    set_rollback()  # as DRF does for its own exceptions, should the request be atomic
    return Response(error.body(), status=error.status, headers=headers)
