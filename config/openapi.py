"""Schema post-processing (drf-spectacular's ``POSTPROCESSING_HOOKS``): answers every view can
give that no single ``extend_schema`` declaration should have to repeat."""

from typing import Any

ERROR_SCHEMA = {"$ref": "#/components/schemas/ErrorOutput"}
UNSUPPORTED_MEDIA_TYPE = {
    "description": "unsupported_media_type: the body's Content-Type is missing or not listed",
    "content": {"application/json": {"schema": ERROR_SCHEMA}},
}


def document_unsupported_media_type(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """Add the 415 to every operation that reads a request body.

    DRF answers 415 (config/exceptions.py gives it the API's error shape) when a body comes with
    no Content-Type or one the view does not parse; schemathesis sends such bodies
    (tests/hostile/test_schemathesis.py), and a client must find the answer in the schema.
    """
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                operation["responses"].setdefault("415", UNSUPPORTED_MEDIA_TYPE)
    return result
