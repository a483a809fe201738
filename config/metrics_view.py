"""``GET /metrics``: the Prometheus exposition, for the monitoring system only.

Answered to a request that carries ``Authorization: Bearer <METRICS_TOKEN>`` or that comes from
an address in ``METRICS_ALLOWED_NETWORKS``; anyone else gets the site's 404, as for a path that
does not exist. Both are empty by default, so nobody is answered until one is set: a reverse
proxy on the same host makes every visitor's request come from loopback, so no network is
trusted unless the operator names it. The address is the one Django sees (``REMOTE_ADDR``: the
proxy's, unless the server is told to trust its forwarded header).
"""

from __future__ import annotations

import hmac
from ipaddress import ip_address, ip_network

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.views.decorators.cache import never_cache
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from config.metrics import scrape_registry


def _token_matches(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    if not token:
        return False
    sent = request.headers.get("Authorization", "")
    return hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())


def _from_allowed_network(request: HttpRequest) -> bool:
    try:
        address = ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in ip_network(net) for net in settings.METRICS_ALLOWED_NETWORKS)


def may_scrape(request: HttpRequest) -> bool:
    return _token_matches(request) or _from_allowed_network(request)


@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    # Access first: to anyone else even a wrong method answers as a missing page does.
    if not may_scrape(request):
        raise Http404
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    return HttpResponse(generate_latest(scrape_registry()), content_type=CONTENT_TYPE_LATEST)
