"""A test-only URLconf: the site's routes plus views that fail, under /api/ and as pages."""

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.urls import path
from rest_framework.decorators import api_view, authentication_classes, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from config.urls import urlpatterns as site

FAULT = "a fault the visitor must not read"


@api_view(["GET"])
@authentication_classes([])
@permission_classes([AllowAny])
def broken_api(request: Request) -> Response:
    raise RuntimeError(FAULT)


def broken_plain(request: HttpRequest) -> HttpResponse:
    raise RuntimeError(FAULT)


def forbidden_page(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied(FAULT)


urlpatterns = [
    path("api/broken/", broken_api),
    path("api/broken-plain/", broken_plain),
    path("broken/", broken_plain),
    path("forbidden/", forbidden_page),
    *site,
]
