"""The OpenAPI schema and its Swagger UI, served from local assets."""

import re
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.test import Client

pytestmark = pytest.mark.django_db


def test_schema_validates_as_openapi_3(tmp_path: Path) -> None:
    out = tmp_path / "schema.yaml"
    # --validate checks against the OpenAPI 3 JSON schema; --fail-on-warn refuses a schema
    # drf-spectacular had to guess at.
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    schema = yaml.safe_load(out.read_text())
    assert schema["openapi"].startswith("3.")
    assert {"/api/auth/register/", "/api/auth/token/"} <= set(schema["paths"])


def test_schema_documents_the_auth_calls() -> None:
    schema = yaml.safe_load(Client().get("/api/schema/").content)
    register = schema["paths"]["/api/auth/register/"]["post"]
    assert {"application/json", "application/x-www-form-urlencoded"} <= set(
        register["requestBody"]["content"]
    )
    assert set(register["responses"]) == {"201", "400", "409", "415", "429"}
    token = schema["paths"]["/api/auth/token/"]["post"]
    assert set(token["responses"]) == {"200", "400", "401", "415", "429"}
    me = schema["paths"]["/api/auth/me/"]["get"]
    assert set(me["responses"]) == {"200", "401"}
    assert {"tokenAuth": []} in me["security"]
    components = schema["components"]["schemas"]
    assert set(components["RegisterOutput"]["properties"]) == {"id", "username", "token"}
    # Email is optional (PROTOCOL.md lists it; a bot may have none).
    assert sorted(components["RegisterInput"]["required"]) == ["password", "username"]
    assert set(components["TokenOutput"]["properties"]) == {"token"}


def test_every_call_that_reads_a_body_documents_415() -> None:
    """DRF answers 415 to a body without a (parsed) Content-Type (config/openapi.py)."""
    schema = yaml.safe_load(Client().get("/api/schema/").content)
    with_body = [
        operation
        for operations in schema["paths"].values()
        for operation in operations.values()
        if "requestBody" in operation
    ]
    assert len(with_body) > 10
    for operation in with_body:
        answer = operation["responses"]["415"]["content"]["application/json"]["schema"]
        assert answer == {"$ref": "#/components/schemas/ErrorOutput"}, operation["operationId"]


def test_docs_use_local_swagger_assets() -> None:
    html = Client().get("/api/docs/").content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    swagger = [url for url in assets if "swagger-ui" in url]
    assert swagger, html
    assert all(url.startswith("/static/drf_spectacular_sidecar/") for url in swagger)
    # Nothing loads from another host (a bare "cdn" could be part of the random CSRF token).
    assert not re.search(r"(?:src|href)=\"(?:https?:)?//", html), html
    assert not re.search(r"https?://[^\"']*cdn", html.lower())
    for url in swagger:
        assert Client().get(url).status_code == 200, url
