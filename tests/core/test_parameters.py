"""One rule for parameters on every route: an unknown query parameter (or form field) is 422
`parameter_unknown`, like an unknown JSON field; request bodies are strict (a string is never
a number or a boolean); query booleans and integers are read as their JSON spelling."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, get_args, get_origin

import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient
from pydantic import BaseModel

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.params import _query_bool, _query_int, declared_query, takes_raw_query
from soundstage.speech.stt.schemas import SttRequest
from soundstage.speech.tts.schemas import TtsRequest
from soundstage.voices.service import CatalogCounts
from tests.support.api import assert_error
from tests.support.audio import wav_bytes
from tests.support.factories import Customer
from tests.support.storage import path_of, stored_media

pytestmark = pytest.mark.services

# The routes whose query string is a credential, checked whole by the route (a signature).
RAW_QUERY_ROUTES = {"/media/{media_id}/{filename}", "/demos/{demo_id}/{filename}"}


def api_routes(app: FastAPI) -> list[tuple[str, str, APIRoute]]:
    """(method, full path, route) of every route the app answers."""
    found: list[tuple[str, str, APIRoute]] = []
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute) and context.path is not None:
            found += [(method, context.path, route) for method in sorted(route.methods or ())]
    return found


# --- unknown parameters --------------------------------------------------------------------


def test_an_unknown_query_parameter_is_422_naming_it(
    client: TestClient, customer: Customer
) -> None:
    response = client.get("/api/v1/studios/discover?citty=Berlin", headers=customer.auth())
    error = assert_error(response, 422, "parameter_unknown")
    assert error["param"] == "citty"
    assert "city" in error["message"]  # the message lists what the endpoint takes
    # Known ones work, repeated ones as before, and the cursor params of page_params count.
    for query in ("city=Berlin", "city=Berlin&city=Paris", "limit=5&city=Berlin"):
        response = client.get(f"/api/v1/studios/discover?{query}", headers=customer.auth())
        assert response.status_code == 200, (query, response.text)


def test_an_unknown_query_parameter_on_a_post_changes_nothing(
    client: TestClient, customer: Customer, demo_catalog: CatalogCounts
) -> None:
    voice = client.get("/api/v1/voices?limit=1", headers=customer.auth()).json()["data"][0]
    body = {"name": "Receptionist", "voice_id": voice["voice_id"]}
    refused = client.post("/api/v1/agents?dry_run=true", json=body, headers=customer.auth())
    assert assert_error(refused, 422, "parameter_unknown")["param"] == "dry_run"
    assert client.get("/api/v1/agents", headers=customer.auth()).json()["data"] == []
    created = client.post("/api/v1/agents", json=body, headers=customer.auth())
    assert created.status_code == 200, created.text


def test_every_route_refuses_unknown_parameters_but_signed_urls(
    app: FastAPI, client: TestClient, customer: Customer
) -> None:
    routes = api_routes(app)
    assert len(routes) > 60
    assert {path for _, path, route in routes if takes_raw_query(route.endpoint)} == (
        RAW_QUERY_ROUTES
    )
    for method, path, route in routes:
        url = re.sub(r"\{[^}]+\}", "zz_none", path)
        response = client.request(method, f"{url}?zz_unknown=1", headers=customer.auth())
        if path in RAW_QUERY_ROUTES:
            # The signature covers the exact query: anything else is not validly signed.
            assert_error(response, 403, "invalid_signature")
            continue
        if path.startswith("/elevenlabs/"):
            # ElevenLabs' shape, {"detail": {status, message}}: the message names the field.
            assert response.status_code == 422, (method, path, response.text)
            detail = response.json()["detail"]
            assert detail["status"] == "parameter_unknown", (method, path)
            assert detail["message"].startswith("zz_unknown:"), (method, path)
        else:
            if path.startswith("/v1/"):  # the OpenAI-compatible surface: OpenAI's error shape
                assert response.status_code == 422, (path, response.text)
                error = response.json()["error"]
                assert error["code"] == "parameter_unknown", path
            else:
                error = assert_error(response, 422, "parameter_unknown")
            assert error["param"] == "zz_unknown", (method, path)
        # Every parameter the route declares (its dependencies' included) is known.
        names = declared_query(route.dependant)
        if names:
            query = "&".join(f"{name}=x" for name in sorted(names))
            response = client.request(method, f"{url}?{query}", headers=customer.auth())
            body = response.json()
            codes = (
                {body.get("error", {}).get("code"), body.get("detail", {}).get("status")}
                if isinstance(body, dict)
                else set()
            )
            assert "parameter_unknown" not in codes, path


def test_signed_media_urls_keep_working(
    client: TestClient, db: Database, settings: Settings, customer: Customer, tmp_path: Path
) -> None:
    media = stored_media(db, settings, customer, tmp_path)
    url = client.get(f"/api/v1/media/{media.id}", headers=customer.auth()).json()["url"]
    response = client.get(path_of(url))
    assert response.status_code == 200
    assert response.content == wav_bytes()
    assert_error(client.get(path_of(url) + "&x=1"), 403, "invalid_signature")


def test_an_unknown_form_field_is_422(client: TestClient, customer: Customer) -> None:
    files = {"file": ("clip.wav", wav_bytes(), "audio/wav")}
    refused = client.post(
        "/api/v1/uploads", files=files, data={"purpose": "input"}, headers=customer.auth()
    )
    assert assert_error(refused, 422, "parameter_unknown")["param"] == "purpose"
    stored = client.post("/api/v1/uploads", files=files, headers=customer.auth())
    assert stored.status_code == 200, stored.text


# --- strict bodies -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "body", "param"),
    [
        ("/api/v1/speech/tts", {"voice_id": "voice_alan", "text": "Hi.", "speed": "1.5"}, "speed"),
        ("/api/v1/speech/tts", {"voice_id": "voice_alan", "text": "Hi.", "pitch": 2.0}, "pitch"),
        ("/api/v1/speech/tts", {"voice_id": "voice_alan", "text": 5}, "text"),
        (
            "/api/v1/speech/stt",
            {"audio_url": "https://example.com/a.wav", "diarize": "yes"},
            "diarize",
        ),
        (
            "/api/v1/speech/stt",
            {"audio_url": "https://example.com/a.wav", "timestamps": 1},
            "timestamps",
        ),
        (
            "/api/v1/creative/daw",
            {
                "tracks": [{"name": "Dialog", "audio_url": "https://example.com/a.wav"}],
                "sample_rate": "48000",
            },
            "sample_rate",
        ),
    ],
)
def test_a_value_of_another_json_type_is_422(
    client: TestClient, customer: Customer, path: str, body: dict[str, Any], param: str
) -> None:
    error = assert_error(
        client.post(path, json=body, headers=customer.auth()), 422, "parameter_invalid"
    )
    assert error["param"] == param


def test_values_of_the_right_type_pass(client: TestClient, customer: Customer) -> None:
    # An integer is a number: `"speed": 1` is valid, and the request goes on to the voice.
    for speed in (1, 1.5):
        body = {"voice_id": "voice_nobody", "text": "Hi.", "speed": speed}
        response = client.post("/api/v1/speech/tts", json=body, headers=customer.auth())
        assert response.status_code == 404, response.text
    assert TtsRequest.model_validate({"voice_id": "v", "text": "Hi.", "speed": 2}).speed == 2.0
    stt = SttRequest.model_validate(
        {"audio_url": "https://example.com/a.wav", "diarize": True, "num_speakers": 2}
    )
    assert (stt.diarize, stt.num_speakers) == (True, 2)


def _models(annotation: Any) -> set[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        found = {annotation}
        for field in annotation.model_fields.values():
            found |= _models(field.annotation)
        return found
    return {m for arg in get_args(annotation) for m in _models(arg)}


def test_every_request_body_is_strict(app: FastAPI) -> None:
    bodies: set[type[BaseModel]] = set()
    for _, _, route in api_routes(app):
        for field in route.dependant.body_params:
            bodies |= _models(field.field_info.annotation)
    assert len(bodies) > 15
    lenient = sorted(m.__name__ for m in bodies if m.model_config.get("strict") is not True)
    assert lenient == []


# --- query strings -------------------------------------------------------------------------


def _bare_scalars(annotation: Any, metadata: list[Any]) -> set[Any]:
    """int, bool or float in a query parameter's type that the core query types do not
    parse."""
    if any(getattr(m, "func", None) in (_query_bool, _query_int) for m in metadata):
        return set()
    if get_origin(annotation) is Annotated:
        inner, *extra = get_args(annotation)
        return _bare_scalars(inner, extra)
    if annotation in (int, bool, float):
        return {annotation}
    return {s for arg in get_args(annotation) for s in _bare_scalars(arg, [])}


def test_every_query_boolean_and_integer_uses_the_core_types(app: FastAPI) -> None:
    from soundstage.core.params import _dependants

    loose = []
    for method, path, route in api_routes(app):
        for dependant in _dependants(route.dependant):
            for field in dependant.query_params:
                if _bare_scalars(field.field_info.annotation, field.field_info.metadata):
                    loose.append(f"{method} {path} {field.alias}")
    assert loose == []


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("limit=5", 200),
        ("limit=-1", 422),  # an integer, out of range
        ("limit=5.0", 422),
        ("limit=+5", 422),
        ("limit=%205", 422),
        ("limit=1_0", 422),
        ("capacity=2", 200),
        ("capacity=two", 422),
    ],
)
def test_query_integers_are_decimal_digits(
    client: TestClient, customer: Customer, query: str, status: int
) -> None:
    response = client.get(f"/api/v1/studios/discover?{query}", headers=customer.auth())
    assert response.status_code == status, response.text
    if status == 422:
        assert response.json()["error"]["param"] == query.split("=")[0]


def test_query_booleans_are_true_or_false(client: TestClient, db: Database) -> None:
    from tests.support.factories import create_buyer

    buyer = create_buyer(db)
    for value in ("true", "false"):
        response = client.get(f"/api/v1/workforce/discover?verified={value}", headers=buyer.auth())
        assert response.status_code == 200, response.text
        assert all(c["verified"] for c in response.json()["data"]) or value == "false"
    for value in ("yes", "1", "True", "on", ""):
        response = client.get(f"/api/v1/workforce/discover?verified={value}", headers=buyer.auth())
        error = assert_error(response, 422, "parameter_invalid")
        assert error["param"] == "verified", value
