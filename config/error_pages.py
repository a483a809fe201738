"""The errors Django answers itself, in the site's two shapes whether DEBUG is on or off.

DRF answers every error of an API view in the API's JSON shape (``config.exceptions``), but some
errors never reach a view or get past DRF: a path that matches no route, an exception nobody
expected (a 500), a request refused before its view (a host not allowed, a form without its CSRF
token, a POST to a path without its slash). Django renders a page for those: with DEBUG off the
site's own templates (``templates/400.html``, ``403.html``, ``403_csrf.html``, ``404.html``,
``500.html``), with DEBUG on its debug pages, which show tracebacks and list every URL pattern.

``ErrorPagesMiddleware`` keeps two promises in both modes:

- under ``/api/`` every error is JSON in the API's error shape, ``{"error": CODE, "message":
  TEXT}`` with the same status: a client reads one shape whatever refused it;
- a page that does not exist is the site's 404 page, never the list of URL patterns.

With DEBUG on (``make dev``) any other page error still shows Django's debug page: that is what
debug is for, and it is off unless asked for (README, Configuration).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.views import defaults

# The API's code for each status (config.exceptions.CODES names DRF's own the same way).
API_CODES = {
    400: "bad_request",
    401: "not_authenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    415: "unsupported_media_type",
    429: "throttled",
    500: "server_error",
    503: "unavailable",
}
API_MESSAGES = {
    400: "The request cannot be read.",
    403: "The request was refused.",
    404: "No such API resource.",
    500: "The server failed to answer; the fault is logged.",
}
# Headers of the page that still hold for the JSON answer.
KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _is_json(response: HttpResponse) -> bool:
    return response.get("Content-Type", "").split(";")[0].strip() == "application/json"


def api_error(response: HttpResponseBase) -> JsonResponse:
    """``response`` (an error page) as the API answers it: same status, the API's shape."""
    status = response.status_code
    message = API_MESSAGES.get(status, f"{response.reason_phrase}.")
    body = {"error": API_CODES.get(status, "error"), "message": message}
    answer = JsonResponse(body, status=status)
    for name in KEPT_HEADERS:
        if name in response:
            answer[name] = response[name]
    return answer


class ErrorPagesMiddleware:
    """JSON for every error under /api/, the site's 404 page for every missing page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code < 400 or response.streaming:
            return response
        if is_api(request):
            return response if _is_json(response) else api_error(response)
        # A path that matched no route never reaches a view; with DEBUG on, Django answers it
        # with the debug page that lists every URL pattern.
        if response.status_code == 404 and request.resolver_match is None and settings.DEBUG:
            return defaults.page_not_found(request, Http404())
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        # A view's Http404 gets the site's page in both modes (DEBUG would list URL patterns).
        if isinstance(exception, Http404):
            return defaults.page_not_found(request, exception)
        return None


class Handler(ASGIHandler):
    """Django's ASGI handler (``config.asgi``), whose own refusals come before any middleware:
    a query string that is not UTF-8 (an empty 400) or a body over the limit (a plain-text
    413). Under ``/api/`` they too answer in the API's shape, the body as the API refuses one
    it reads itself (400 ``bad_request``, ``config.exceptions.refused_request``)."""

    def create_request(self, scope: Any, body_file: Any) -> tuple[Any, Any]:
        request, refusal = super().create_request(scope, body_file)
        if refusal is None or not str(scope.get("path", "")).startswith("/api/"):
            return request, refusal
        if refusal.status_code == 413:
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            message = f"the request body is over {limit} bytes"
            return None, JsonResponse({"error": "bad_request", "message": message}, status=400)
        return None, api_error(refusal)
