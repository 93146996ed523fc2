"""Each compatible surface answers errors in its API's shape, the native API in its own; the
ElevenLabs surface takes its key in `xi-api-key`."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.support.factories import Customer


def test_openai_errors_have_openai_shape(client: TestClient, customer: Customer) -> None:
    missing = client.get("/v1/models")
    assert missing.status_code == 401
    assert set(missing.json()) == {"error"}
    assert set(missing.json()["error"]) == {"message", "type", "param", "code"}
    assert missing.json()["error"]["code"] == "missing_api_key"

    unknown = client.get("/v1/no-such-route", headers=customer.auth())
    assert unknown.status_code == 404
    assert unknown.json() == {
        "error": {
            "message": "Unrecognized request URL (GET /v1/no-such-route).",
            "type": "invalid_request_error",
            "param": None,
            "code": "route_not_found",
        }
    }


def test_openai_responses_carry_the_request_id_as_openai_names_it(
    client: TestClient, customer: Customer
) -> None:
    """`X-Request-Id`, which the SDK reads, on answers and errors alike; elsewhere only the
    native `Request-Id`."""
    for response in (client.get("/v1/models", headers=customer.auth()), client.get("/v1/models")):
        assert response.headers["Request-Id"].startswith("req_")
        assert response.headers["X-Request-Id"] == response.headers["Request-Id"]
    native = client.get("/api/v1/voices", headers=customer.auth())
    assert native.headers["Request-Id"].startswith("req_")
    assert "X-Request-Id" not in native.headers


def test_elevenlabs_errors_have_elevenlabs_shape(client: TestClient, customer: Customer) -> None:
    missing = client.get("/elevenlabs/v1/models")
    assert missing.status_code == 401
    assert missing.json() == {
        "detail": {"status": "missing_api_key", "message": missing.json()["detail"]["message"]}
    }

    bad = client.get("/elevenlabs/v1/no-such-route", headers={"xi-api-key": "sk_sandbox_nope"})
    assert bad.status_code == 401
    assert bad.json()["detail"]["status"] == "invalid_api_key"

    key = customer.sandbox_key
    for headers in ({"xi-api-key": key}, customer.auth()):
        unknown = client.get("/elevenlabs/v1/no-such-route", headers=headers)
        assert unknown.status_code == 404, unknown.text
        assert unknown.json()["detail"]["status"] == "route_not_found"


def test_native_errors_keep_the_native_envelope(client: TestClient) -> None:
    missing = client.get("/api/v1/voices")
    assert missing.status_code == 401
    assert set(missing.json()["error"]) == {"type", "code", "message", "param", "request_id"}
    # A path only sharing the prefix's letters is not the surface's.
    assert "error" in client.get("/v10/models").json()


def test_the_openapi_document_shows_each_surface_with_its_tag_and_error_shape(
    client: TestClient,
) -> None:
    document = client.get("/openapi.json").json()
    surfaces = {
        "/v1/": ("OpenAI compatible", "OpenAIErrorEnvelope"),
        "/elevenlabs/": ("ElevenLabs compatible", "ElevenLabsErrorEnvelope"),
        "/api/": (None, "ErrorEnvelope"),
    }
    seen = set()
    for path, item in document["paths"].items():
        for prefix, (tag, envelope) in surfaces.items():
            if not path.startswith(prefix):
                continue
            seen.add(prefix)
            for operation in item.values():
                if tag is not None:
                    assert operation["tags"] == [tag], path
                schema = operation["responses"]["401"]["content"]["application/json"]["schema"]
                assert schema == {"$ref": f"#/components/schemas/{envelope}"}, path
    assert seen == set(surfaces)
    schemas = document["components"]["schemas"]
    assert set(schemas["OpenAIErrorEnvelope"]["properties"]) == {"error"}
    assert set(schemas["ElevenLabsErrorEnvelope"]["properties"]) == {"detail"}
