"""The quick-play admin: staff see who waits where, and change nothing there."""

from __future__ import annotations

import pytest
from django.test import Client

from lobby import services
from tests.lobby.factories import STANDARD_4, rated

pytestmark = pytest.mark.django_db


def test_the_waiters_are_listed_and_not_editable(admin_client: Client) -> None:
    ann = rated("ann", 1620)
    services.pool_join(user=ann, **STANDARD_4)
    listing = admin_client.get("/admin/lobby/poolentry/").content.decode()
    assert "ann" in listing and "1620" in listing
    assert admin_client.get("/admin/lobby/poolentry/add/").status_code == 403
    page = admin_client.get(f"/admin/lobby/poolentry/{ann.pk}/change/").content.decode()
    assert 'name="_save"' not in page  # shown, not editable
