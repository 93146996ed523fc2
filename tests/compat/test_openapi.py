"""The compatible surfaces' OpenAPI document says what the routes do: each ElevenLabs speech
route lists the Content-Type of every `output_format` it takes (mu-law and A-law included),
and OpenAI's translations document only the form fields they take."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from soundstage.media import encodings
from soundstage.voices.service import CatalogCounts
from tests.support.factories import Customer

SPEECH = "/elevenlabs/v1/text-to-speech/{voice_id}"
STREAM = SPEECH + "/stream"
TRANSLATIONS = "/v1/audio/translations"
TRANSCRIPTIONS = "/v1/audio/transcriptions"


def enum_values(schema: dict[str, Any]) -> list[str]:
    """Every value of an enum schema, or of the enums of its `anyOf` / `oneOf` parts."""
    values = list(schema.get("enum", []))
    for part in schema.get("anyOf", []) + schema.get("oneOf", []):
        values += enum_values(part)
    return values


def output_formats(operation: dict[str, Any]) -> list[str]:
    parameter = next(p for p in operation["parameters"] if p["name"] == "output_format")
    return enum_values(parameter["schema"])


@pytest.mark.parametrize("path", [SPEECH, STREAM])
def test_elevenlabs_speech_lists_the_content_type_of_every_output_format(
    app: FastAPI, path: str
) -> None:
    operation = app.openapi()["paths"][path]["post"]
    formats = output_formats(operation)
    assert {"ulaw_8000", "alaw_8000", "pcm_16000", "mp3_44100_128"} <= set(formats)
    documented = set(operation["responses"]["200"]["content"])
    assert documented == {encodings.encoding(name).content_type for name in formats}
    assert {"audio/basic", "audio/x-alaw-basic"} <= documented


@pytest.mark.parametrize(("path", "output_format"), [(SPEECH, "alaw_8000"), (STREAM, "ulaw_8000")])
def test_the_answer_is_one_of_the_documented_content_types(
    app: FastAPI,
    client: TestClient,
    customer: Customer,
    worker: subprocess.Popen[bytes],
    demo_catalog: CatalogCounts,
    path: str,
    output_format: str,
) -> None:
    answer = client.post(
        path.format(voice_id="voice_joe"),
        params={"output_format": output_format},
        headers={"xi-api-key": customer.sandbox_key},
        json={"text": "Hi.", "model_id": "eleven_multilingual_v2"},
    )
    assert answer.status_code == 200, answer.text
    assert answer.content
    documented = app.openapi()["paths"][path]["post"]["responses"]["200"]["content"]
    assert answer.headers["content-type"] in documented


def form_fields(app: FastAPI, path: str) -> dict[str, Any]:
    body = app.openapi()["paths"][path]["post"]["requestBody"]
    fields: dict[str, Any] = body["content"]["multipart/form-data"]["schema"]["properties"]
    return fields


def test_openai_translations_document_only_the_fields_they_take(
    app: FastAPI, client: TestClient, customer: Customer
) -> None:
    translation = form_fields(app, TRANSLATIONS)
    transcription = form_fields(app, TRANSCRIPTIONS)
    assert "language" in transcription
    assert set(translation) == {"file", "model", "prompt", "response_format", "temperature"}
    assert "diarized_json" in transcription["response_format"]["enum"]
    assert "diarized_json" not in translation["response_format"]["enum"]
    responses = app.openapi()["paths"][TRANSLATIONS]["post"]["responses"]["200"]["content"]
    assert "text/event-stream" not in responses  # no `stream` field
    # What the translation form leaves out, the route refuses, naming the field.
    for name in sorted(set(transcription) - set(translation)):
        value = "word" if name.endswith("[]") else "true" if name == "stream" else "de"
        refused = client.post(
            TRANSLATIONS,
            headers=customer.auth(),
            files=[
                ("file", ("a.wav", b"RIFF")),
                ("model", (None, "whisper-1")),
                (name, (None, value)),
            ],
        )
        assert refused.status_code == 422, (name, refused.text)
        assert refused.json()["error"]["param"] == name.removesuffix("[]")
