"""The OpenAPI document declares the bearer key on every operation that takes the caller
(core.openapi adds it: the caller's dependency has no security sub-dependency of FastAPI's,
which would be solved on every request)."""

from __future__ import annotations

from fastapi import FastAPI


def test_operations_that_take_the_caller_declare_the_bearer_key(app: FastAPI) -> None:
    doc = app.openapi()
    assert doc["components"]["securitySchemes"]["HTTPBearer"] == {
        "type": "http",
        "description": "Secret key: sk_sandbox_… or sk_live_…",
        "scheme": "bearer",
    }
    keyed = {
        (method, path)
        for path, item in doc["paths"].items()
        for method, operation in item.items()
        if operation.get("security") == [{"HTTPBearer": []}]
    }
    assert ("get", "/api/v1/credits") in keyed
    assert ("post", "/api/v1/speech/tts") in keyed
    assert ("get", "/api/v1/voices") in keyed  # a router-wide dependency counts too
    assert ("post", "/v1/audio/speech") in keyed  # the compatible surfaces' too
    # Probes and the public media URLs take no key.
    assert ("get", "/healthz") not in keyed
    assert ("get", "/media/{media_id}/{filename}") not in keyed
    assert len(keyed) >= 100
