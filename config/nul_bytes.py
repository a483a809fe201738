"""Refuse a NUL byte in a request's path or query string before any view reads it.

PostgreSQL text cannot hold a NUL (0x00) byte: a query whose parameter carries one fails with a
DataError, a 500. Form and serializer fields already refuse NUL (Django's and DRF's
``ProhibitNullCharactersValidator``), but path segments (``/players/<str:username>/``) and query
parameters (``?club=``, ``?around=``) reach the database as typed. No name, slug or filter of ours
contains a NUL, so one is refused at the door, once for every view: a path with one names no
resource (404), a query with one is a malformed request (400). Under /api/ the answer is JSON in
the API's error shape (config/exceptions.py).
"""

from collections.abc import Callable
from urllib.parse import unquote_to_bytes

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

NUL = b"\x00"


def _has_nul(raw: str) -> bool:
    """Whether ``raw`` (percent-encoded or not, ``+`` for space) decodes to a NUL byte."""
    return NUL in unquote_to_bytes(raw)


def _refusal(request: HttpRequest, status: int, message: str) -> HttpResponse:
    if request.path.startswith("/api/"):
        code = "not_found" if status == 404 else "bad_request"
        return JsonResponse({"error": code, "message": message}, status=status)
    if status == 404:
        return defaults.page_not_found(request, Exception(message))
    return defaults.bad_request(request, Exception(message))


class NulBytesMiddleware:
    """Answers 404 for a NUL in the path, 400 for one in the query string."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path:
            return _refusal(request, 404, "No such resource.")
        if _has_nul(request.META.get("QUERY_STRING", "")):
            return _refusal(request, 400, "The query string holds a NUL byte.")
        return self.get_response(request)
