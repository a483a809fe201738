"""config.exceptions.not_found: a path under /api/ that matches no route answers JSON."""

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url", ["/api/nothing-here/", "/api/tables/seven/", "/api/events/not%20a%20slug/"]
)
def test_an_unrouted_api_path_answers_the_api_error_shape(url: str) -> None:
    response = Client().get(url)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"error": "not_found", "message": "No such API resource."}


def test_an_unrouted_page_keeps_the_html_404() -> None:
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
