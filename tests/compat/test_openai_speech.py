"""The OpenAI-compatible speech, models and voices, through the official `openai` SDK against a
live server and worker: every response format decoded, both stream formats, OpenAI's speed
range, the voice names, the charge, and the SDK's typed errors."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest
from openai._streaming import SSEDecoder

from soundstage.compat.voice_aliases import OPENAI_VOICES
from soundstage.core.db import Database
from tests.support.factories import Customer, create_customer
from tests.support.openai_sdk import audio_seconds, sdk_client, sse_events
from tests.support.streams import HANG_UP_TEXT, charges_of, read_until

TEXT = "Hello from the speech service."
CONTENT_TYPES = {
    "mp3": "audio/mpeg",
    "opus": "audio/opus",
    "aac": "audio/aac",
    "flac": "audio/flac",
    "wav": "audio/wav",
    "pcm": "audio/pcm",
}


def balance(live_url: str, customer: Customer) -> int:
    answer = httpx.get(f"{live_url}/api/v1/credits", headers=customer.auth(), timeout=30)
    assert answer.status_code == 200, answer.text
    value: int = answer.json()["balance"]
    return value


def test_models_are_listed_and_retrieved(live_url: str, customer: Customer) -> None:
    client = sdk_client(live_url, customer.sandbox_key)
    models = client.models.list()
    ids = [model.id for model in models]
    for expected in ("tts-1", "tts-1-hd", "gpt-4o-mini-tts", "whisper-1", "soundstage-tts"):
        assert expected in ids
    assert all(model.object == "model" and model.owned_by == "soundstage" for model in models)

    model = client.models.retrieve("tts-1")
    assert (model.id, model.object, model.owned_by) == ("tts-1", "model", "soundstage")
    assert model.created > 1_700_000_000

    with pytest.raises(openai.NotFoundError) as missing:
        client.models.retrieve("gpt-5-tts")
    assert missing.value.code == "model_not_found"


def test_audio_voices_and_models_answer_open_webui_shapes(
    live_url: str, customer: Customer
) -> None:
    voices = httpx.get(f"{live_url}/v1/audio/voices", headers=customer.auth(), timeout=30)
    assert voices.status_code == 200, voices.text
    listed = {voice["id"]: voice for voice in voices.json()["voices"]}
    # Every OpenAI name is listed first, each an English voice or a pitch of one of its own.
    assert [name for name in listed if name in OPENAI_VOICES] == list(OPENAI_VOICES)
    mapped = {(listed[name]["voice_id"], listed[name]["pitch"]) for name in OPENAI_VOICES}
    assert len(mapped) == len(OPENAI_VOICES) == 13
    for name in OPENAI_VOICES:
        assert listed[name]["language"].startswith("en"), name
    assert (listed["coral"]["voice_id"], listed["coral"]["pitch"]) == ("voice_sally", 2)
    assert listed["voice_joe"]["voice_id"] == "voice_joe"

    models = httpx.get(f"{live_url}/v1/audio/models", headers=customer.auth(), timeout=30)
    assert models.status_code == 200
    assert {"tts-1", "tts-1-hd"} <= {model["id"] for model in models.json()["models"]}


@pytest.mark.parametrize("response_format", list(CONTENT_TYPES))
def test_every_response_format_decodes(
    live_url: str, customer: Customer, response_format: str
) -> None:
    client = sdk_client(live_url, customer.sandbox_key)
    raw = client.audio.speech.with_raw_response.create(
        model="tts-1",
        voice="alloy",
        input=TEXT,
        response_format=response_format,  # type: ignore[arg-type]
    )
    assert raw.headers["content-type"] == CONTENT_TYPES[response_format]
    data = raw.parse().read()
    seconds = audio_seconds(data, response_format)
    assert 0.8 < seconds < 6.0, seconds


def test_voices_by_name_by_id_and_by_object_all_speak(live_url: str, customer: Customer) -> None:
    client = sdk_client(live_url, customer.sandbox_key)
    for voice in ("nova", "voice_richard", {"id": "voice_sally"}, "SAGE"):
        audio = client.audio.speech.create(
            model="gpt-4o-mini-tts",
            voice=voice,  # type: ignore[arg-type]
            input="Good morning.",
            response_format="wav",
            instructions="Speak cheerfully.",
        )
        assert 0.3 < audio_seconds(audio.read(), "wav") < 4.0, voice


def test_speed_takes_openai_range(live_url: str, customer: Customer) -> None:
    client = sdk_client(live_url, customer.sandbox_key)

    def seconds(speed: float) -> float:
        audio = client.audio.speech.create(
            model="tts-1",
            voice="alloy",
            input="One, two, three.",
            response_format="pcm",
            speed=speed,
        )
        return audio_seconds(audio.read(), "pcm")

    normal, fastest, slowest = seconds(1.0), seconds(4.0), seconds(0.25)
    assert fastest < normal * 0.45, (fastest, normal)
    assert slowest > normal * 2.5, (slowest, normal)


def test_sse_stream_is_read_by_the_sdk(live_url: str, customer: Customer) -> None:
    client = sdk_client(live_url, customer.sandbox_key)
    with client.audio.speech.with_streaming_response.create(
        model="tts-1", voice="echo", input=TEXT, response_format="mp3", stream_format="sse"
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response.iter_bytes())
    assert [event["type"] for event in events[:-1]] == ["speech.audio.delta"] * (len(events) - 1)
    assert len(events) >= 2
    done = events[-1]
    assert done["type"] == "speech.audio.done"
    assert done["usage"]["input_tokens"] == len(TEXT)
    audio = b"".join(base64.b64decode(event["audio"]) for event in events[:-1])
    assert 0.8 < audio_seconds(audio, "mp3") < 6.0


def test_audio_stream_arrives_in_pieces(live_url: str, customer: Customer) -> None:
    client = sdk_client(live_url, customer.sandbox_key)
    text = "The first sentence is short. The second one follows it. A third ends the text."
    with client.audio.speech.with_streaming_response.create(
        model="tts-1", voice="alloy", input=text, response_format="pcm"
    ) as response:
        assert response.headers.get("transfer-encoding") == "chunked"
        data = b"".join(response.iter_bytes())
    assert audio_seconds(data, "pcm") > 2.0


def test_speech_is_charged_per_character(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=1_000)
    client = sdk_client(live_url, customer.sandbox_key)
    before = balance(live_url, customer)
    client.audio.speech.create(model="tts-1", voice="onyx", input=TEXT).read()
    assert balance(live_url, customer) == before - len(TEXT)


def test_errors_are_the_sdks_typed_exceptions(live_url: str, customer: Customer) -> None:
    bad_key = sdk_client(live_url, "sk_sandbox_not_a_real_key_at_all")
    with pytest.raises(openai.AuthenticationError):
        bad_key.audio.speech.create(model="tts-1", voice="alloy", input=TEXT)

    client = sdk_client(live_url, customer.sandbox_key)
    with pytest.raises(openai.NotFoundError) as voice:
        client.audio.speech.create(model="tts-1", voice="no-such-voice", input=TEXT)
    assert voice.value.code == "voice_not_found"
    assert isinstance(voice.value.body, dict)
    assert voice.value.body["param"] == "voice"
    assert "no-such-voice" in voice.value.message

    with pytest.raises(openai.NotFoundError) as model:
        client.audio.speech.create(model="whisper-1", voice="alloy", input=TEXT)
    assert model.value.code == "model_not_found"

    # The spec's bounds: one value inside (above), one outside.
    cases: dict[str, dict[str, Any]] = {"input": {"input": "a" * 4097}, "speed": {"speed": 4.01}}
    cases["speed_low"] = {"speed": 0.24}
    for name, fields in cases.items():
        arguments: dict[str, Any] = {"model": "tts-1", "voice": "alloy", "input": TEXT, **fields}
        with pytest.raises(openai.UnprocessableEntityError) as invalid:
            client.audio.speech.create(**arguments)
        assert isinstance(invalid.value.body, dict)
        assert invalid.value.body["param"] == name.removesuffix("_low"), name
    before = balance(live_url, customer)
    assert before == 1_000  # nothing charged for any of them


def test_input_of_4096_characters_is_accepted(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=5_000)
    text = ("Hi. " * 1024)[:4096]
    with sdk_client(live_url, customer.sandbox_key).audio.speech.with_streaming_response.create(
        model="tts-1", voice="alloy", input=text, response_format="pcm"
    ) as response:
        assert response.status_code == 200
        # The first bytes are enough: the whole text is not what this checks.
        assert next(response.iter_bytes())


def test_rate_limit_is_the_sdks_rate_limit_error(live_url: str, db: Database) -> None:
    customer = create_customer(db)
    client = sdk_client(live_url, customer.sandbox_key)
    for _ in range(100):  # the live server's sandbox limit is 100 a minute
        client.models.list()
    with pytest.raises(openai.RateLimitError) as limited:
        client.models.list()
    assert int(limited.value.response.headers["retry-after"]) >= 1
    assert limited.value.code == "rate_limited"


@pytest.mark.parametrize("stream_format", ["audio", "sse"])
@pytest.mark.parametrize("share", [0.5, 0.9])
def test_a_client_that_hangs_up_pays_for_the_audio_it_was_sent(
    live_url: str, db: Database, stream_format: str, share: float
) -> None:
    """Every byte of audio handed to a client is paid for: reading `share` of the audio
    (raw, or base64 in events) and closing the connection costs at least that share."""
    customer = create_customer(db, credits_each=1_000)
    client = sdk_client(live_url, customer.sandbox_key)

    def speech() -> Any:
        return client.audio.speech.with_streaming_response.create(
            model="tts-1",
            voice="fable",  # flite's awb: the same audio for the same text, every time
            input=HANG_UP_TEXT,
            response_format="pcm",
            stream_format=stream_format,  # type: ignore[arg-type]
        )

    def audio(response: Any) -> Iterator[bytes]:
        if stream_format == "audio":
            yield from response.iter_bytes()
            return
        for event in SSEDecoder().iter_bytes(response.iter_bytes()):
            data = json.loads(event.data)
            if data["type"] == "speech.audio.delta":
                yield base64.b64decode(data["audio"])

    with speech() as response:
        whole = sum(len(chunk) for chunk in audio(response))
    with speech() as response:
        job_id = response.headers["soundstage-job-id"]
        read_until(audio(response), round(whole * share))
    charged = charges_of(live_url, customer, job_id)
    assert len(charged) == 1
    assert share * len(HANG_UP_TEXT) <= charged[0] <= len(HANG_UP_TEXT), (share, charged)


def test_an_alias_is_billed_as_spoken(live_url: str, db: Database) -> None:
    """`input` may be SSML: a <sub> is billed as its alias is spoken, not as its text is
    written (3 characters here), and the usage says so."""
    customer = create_customer(db, credits_each=1_000)
    client = sdk_client(live_url, customer.sandbox_key)
    alias = ("lorem ipsum dolor sit amet " * 8)[:200]
    text = "<speak>" + " ".join([f'<sub alias="{alias}">x</sub>'] * 2) + "</speak>"
    spoken = len(f"{alias} {alias}")
    with client.audio.speech.with_streaming_response.create(
        model="tts-1", voice="fable", input=text, response_format="pcm", stream_format="sse"
    ) as response:
        events = sse_events(response.iter_bytes())
    assert events[-1]["usage"]["input_tokens"] == spoken
    assert balance(live_url, customer) == 1_000 - spoken
