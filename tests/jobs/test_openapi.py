"""GET /api/v1/jobs/{job_id} documents each job kind's result: a union of the job's shapes,
one per kind the service declares, discriminated by `kind`, each naming its kind's result
model (the model the kind's handler builds and the synchronous answer extends)."""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI

from soundstage.app import create_app
from soundstage.config import Settings

# Every kind the service runs from its queue, and the model of its result.
RESULTS = {
    "tts": "TtsResult",
    "stt": "SttResult",
    "isolation": "IsolationResult",
    "voice_changer": "VoiceChangerResult",
    "music": "MusicResult",
    "sound": "SoundResult",
    "daw": "DawResult",
    "dubbing": "DubbingResult",
}
REF = "#/components/schemas/"


def _ok_schema(app: FastAPI) -> tuple[dict[str, Any], dict[str, Any]]:
    document = app.openapi()
    answer = document["paths"]["/api/v1/jobs/{job_id}"]["get"]["responses"]["200"]
    return answer["content"]["application/json"]["schema"], document["components"]["schemas"]


def test_a_jobs_result_is_documented_by_its_kind(settings: Settings) -> None:
    schema, components = _ok_schema(create_app(settings))
    assert schema["discriminator"]["propertyName"] == "kind"
    mapping: dict[str, str] = schema["discriminator"]["mapping"]
    assert {one["$ref"] for one in schema["oneOf"]} == set(mapping.values())
    for kind, result in RESULTS.items():
        variant = components[mapping[kind].removeprefix(REF)]
        assert variant["properties"]["kind"]["const"] == kind
        shapes = variant["properties"]["result"]["anyOf"]
        assert {"$ref": REF + result} in shapes, (kind, shapes)
        assert {"type": "null"} in shapes  # until the job has completed
    # The realtime sessions' jobs are listed too (their result is any object).
    assert {"tts_realtime", "stt_realtime"} <= set(mapping)


def test_media_in_a_result_are_documented_as_the_urls_clients_get(settings: Settings) -> None:
    _, components = _ok_schema(create_app(settings))
    assert components["TtsResult"]["properties"]["output_url"]["type"] == "string"
    assert components["DubbingResult"]["properties"]["target_transcript_url"]["type"] == "string"
    # No stored reference shows through in any of the service's results (a test plugin's
    # kinds, registered in this process too, may declare what they like).
    for result in RESULTS.values():
        assert "MediaRef" not in json.dumps(components[result]), result
    # The synchronous answer extends its kind's result model: documented as it was.
    assert components["TtsResponse"]["properties"]["output_url"]["type"] == "string"
    assert "model_segments" not in components["SttResponse"]["properties"]
