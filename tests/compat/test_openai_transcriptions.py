"""The OpenAI-compatible transcriptions and translations, through the official `openai` SDK
against a live server and worker: real speech (LibriVox) in every response format, scored by
word error rate, verbose_json's timings, diarization, the SDK's streamed events, the charge,
and the typed errors."""

from __future__ import annotations

import math
import re
from pathlib import Path

import httpx
import openai
import pytest

from soundstage.core.db import Database
from tests.support.audio_fixtures import Clip, librivox_clips, word_error_rate
from tests.support.factories import Customer, create_customer
from tests.support.openai_sdk import sdk_client

pytestmark = pytest.mark.slow

PYANNOTE_SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "pyannote" / "sample.flac"
# A STT timestamp ("00:00:01,234" or "00:00:01.234").
CLOCK = re.compile(r"(\d\d):(\d\d):(\d\d)[,.](\d\d\d)")


@pytest.fixture(scope="module")
def clip() -> Clip:
    """The longest LibriVox clip (7 s)."""
    return max(librivox_clips(), key=lambda c: len(c.text))


@pytest.fixture
def client(live_url: str, customer: Customer) -> openai.OpenAI:
    return sdk_client(live_url, customer.sandbox_key)


def cue_text(subtitles: str) -> str:
    """The words of SRT or WebVTT cues (numbers, timings and the header left out)."""
    lines = [
        line
        for line in subtitles.splitlines()
        if line.strip() and "-->" not in line and not line.strip().isdigit() and line != "WEBVTT"
    ]
    return " ".join(lines)


def test_json_is_the_default(client: openai.OpenAI, clip: Clip) -> None:
    with clip.path.open("rb") as audio:
        transcript = client.audio.transcriptions.create(model="whisper-1", file=audio)
    assert word_error_rate(clip.text, transcript.text) <= 0.05, transcript.text
    assert transcript.usage is not None
    assert transcript.usage.type == "duration"
    assert transcript.usage.seconds == pytest.approx(7.1, abs=0.1)


def test_verbose_json_has_openais_fields_and_timings(client: openai.OpenAI, clip: Clip) -> None:
    with clip.path.open("rb") as audio:
        verbose = client.audio.transcriptions.create(
            model="whisper-1",
            file=audio,
            language="en",
            response_format="verbose_json",
            timestamp_granularities=["word", "segment"],
        )
    assert word_error_rate(clip.text, verbose.text) <= 0.05, verbose.text
    assert verbose.language == "english"
    assert verbose.duration == pytest.approx(7.1, abs=0.1)
    assert getattr(verbose, "task", None) == "transcribe"
    assert verbose.segments
    assert verbose.words
    previous_end = 0.0
    for index, segment in enumerate(verbose.segments):
        assert segment.id == index
        assert previous_end <= segment.start <= segment.end <= verbose.duration
        previous_end = segment.end
        assert segment.tokens  # Whisper's own
        assert segment.avg_logprob < 0
        assert 0 <= segment.no_speech_prob <= 1
        assert segment.compression_ratio > 0
        assert segment.temperature == 0.0
    assert word_error_rate(clip.text, " ".join(s.text for s in verbose.segments)) <= 0.05
    previous_end = 0.0
    for word in verbose.words:
        assert previous_end <= word.start <= word.end <= verbose.duration
        previous_end = word.end
    # The words are the clip's, at the reference alignment's times (within 0.5 s).
    assert len(verbose.words) >= len(clip.words) - 2
    assert verbose.words[0].start == pytest.approx(clip.words[0].start_ms / 1000, abs=0.5)
    assert verbose.words[-1].end == pytest.approx(clip.words[-1].end_ms / 1000, abs=0.5)


def test_verbose_json_words_only_leaves_segments_out(client: openai.OpenAI, clip: Clip) -> None:
    with clip.path.open("rb") as audio:
        verbose = client.audio.transcriptions.create(
            model="whisper-1",
            file=audio,
            response_format="verbose_json",
            timestamp_granularities=["word"],
        )
    assert verbose.words
    assert verbose.segments is None


@pytest.mark.parametrize("response_format", ["text", "srt", "vtt"])
def test_text_formats_are_plain_text(
    live_url: str, customer: Customer, clip: Clip, response_format: str
) -> None:
    client = sdk_client(live_url, customer.sandbox_key)
    with clip.path.open("rb") as audio:
        raw = client.audio.transcriptions.with_raw_response.create(  # type: ignore[call-overload]
            model="whisper-1",
            file=audio,
            response_format=response_format,
        )
    body = raw.parse()
    assert isinstance(body, str)
    media = {"text": "text/plain", "srt": "application/x-subrip", "vtt": "text/vtt"}
    assert raw.headers["content-type"].startswith(media[response_format])
    if response_format == "text":
        text = body
    else:
        assert len(CLOCK.findall(body)) >= 2
        assert body.startswith("WEBVTT") == (response_format == "vtt")
        text = cue_text(body)
    assert word_error_rate(clip.text, text) <= 0.05, body


def test_diarized_json_tells_the_speakers_apart(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=1_000)
    client = sdk_client(live_url, customer.sandbox_key)
    reference = " ".join(
        line.split(maxsplit=5)[5]
        for line in PYANNOTE_SAMPLE.with_suffix(".stm").read_text().splitlines()
    )
    with PYANNOTE_SAMPLE.open("rb") as audio:
        diarized = client.audio.transcriptions.create(
            model="gpt-4o-transcribe-diarize", file=audio, response_format="diarized_json"
        )
    assert diarized.task == "transcribe"
    assert diarized.duration == pytest.approx(30.0, abs=0.2)
    # A telephone call between two people, transcribed by whisper-base: scored loosely.
    assert word_error_rate(reference, diarized.text) <= 0.25, diarized.text
    assert {segment.speaker for segment in diarized.segments} == {"A", "B"}
    assert diarized.segments[0].speaker == "A"
    previous_start = 0.0
    for segment in diarized.segments:
        assert segment.type == "transcript.text.segment"
        assert previous_start <= segment.start <= segment.end
        previous_start = segment.start


def test_stream_events_are_read_by_the_sdk(client: openai.OpenAI, clip: Clip) -> None:
    with clip.path.open("rb") as audio:
        stream = client.audio.transcriptions.create(model="whisper-1", file=audio, stream=True)
        events = list(stream)
    assert [event.type for event in events[:-1]] == ["transcript.text.delta"] * (len(events) - 1)
    done = events[-1]
    assert done.type == "transcript.text.done"
    deltas = "".join(event.delta for event in events[:-1] if event.type == "transcript.text.delta")
    assert deltas == done.text
    assert word_error_rate(clip.text, done.text) <= 0.05, done.text


@pytest.mark.filterwarnings("ignore:deprecated:DeprecationWarning")  # the SDK's, of the route
def test_translation_of_english_is_english(client: openai.OpenAI, clip: Clip) -> None:
    """The fixtures hold no recording in another language (and whisper-base cannot read the
    catalog's eSpeak voices well enough to translate them): English in gives English out."""
    with clip.path.open("rb") as audio:
        translation = client.audio.translations.create(model="whisper-1", file=audio)
    assert word_error_rate(clip.text, translation.text) <= 0.10, translation.text
    with clip.path.open("rb") as audio:
        verbose = client.audio.translations.create(
            model="whisper-1", file=audio, response_format="verbose_json"
        )
    assert verbose.language == "english"
    assert verbose.segments


def test_transcription_is_charged_by_the_minute(live_url: str, db: Database, clip: Clip) -> None:
    customer = create_customer(db, credits_each=1_000)
    client = sdk_client(live_url, customer.sandbox_key)
    with clip.path.open("rb") as audio:
        client.audio.transcriptions.create(model="whisper-1", file=audio, response_format="text")
    answer = httpx.get(f"{live_url}/api/v1/credits", headers=customer.auth(), timeout=30)
    # 250 credits a minute per started second, rounded up: 8 s of the 7.1 s clip.
    assert answer.json()["balance"] == 1_000 - math.ceil(250 * 8 / 60)


def test_a_retry_with_the_same_idempotency_key_is_answered_once(
    live_url: str, db: Database, clip: Clip
) -> None:
    """As on the native API: the second upload under the key (another multipart boundary)
    replays the first answer, and the transcription is charged once."""
    customer = create_customer(db, credits_each=1_000)
    client = sdk_client(live_url, customer.sandbox_key)
    key = {"Idempotency-Key": f"retry-{customer.account_id}"}
    answers = []
    for _ in range(2):
        with clip.path.open("rb") as audio:
            answers.append(
                client.audio.transcriptions.with_raw_response.create(
                    model="whisper-1", file=audio, response_format="json", extra_headers=key
                )
            )
    first, second = answers
    assert second.http_response.content == first.http_response.content
    assert word_error_rate(clip.text, first.parse().text) <= 0.05
    assert "Idempotent-Replayed" not in first.headers
    assert second.headers["Idempotent-Replayed"] == "true"
    answer = httpx.get(f"{live_url}/api/v1/credits", headers=customer.auth(), timeout=30)
    assert answer.json()["balance"] == 1_000 - math.ceil(250 * 8 / 60)


def test_form_errors_name_the_field(client: openai.OpenAI, clip: Clip) -> None:
    with clip.path.open("rb") as audio, pytest.raises(openai.NotFoundError) as model:
        client.audio.transcriptions.create(model="tts-1", file=audio)
    assert model.value.code == "model_not_found"

    with clip.path.open("rb") as audio, pytest.raises(openai.UnprocessableEntityError) as fmt:
        client.audio.transcriptions.create(  # type: ignore[call-overload]
            model="whisper-1",
            file=audio,
            response_format="docx",
        )
    assert isinstance(fmt.value.body, dict)
    assert fmt.value.body["param"] == "response_format"

    with pytest.raises(openai.UnprocessableEntityError) as empty:
        client.audio.transcriptions.create(model="whisper-1", file=("a.wav", b""))
    assert isinstance(empty.value.body, dict)
    assert empty.value.body["param"] == "file"

    with pytest.raises(openai.UnprocessableEntityError) as garbage:
        client.audio.transcriptions.create(model="whisper-1", file=("a.wav", b"not audio" * 50))
    assert isinstance(garbage.value.body, dict)
    assert garbage.value.body["param"] == "file"


def test_form_fields_are_bounded_and_named(live_url: str, customer: Customer) -> None:
    def post(path: str, files: list[tuple[str, tuple[str | None, bytes | str]]]) -> httpx.Response:
        return httpx.post(f"{live_url}{path}", headers=customer.auth(), files=files, timeout=30)

    audio = ("a.wav", b"RIFF")
    missing = post("/v1/audio/transcriptions", [("model", (None, "whisper-1"))])
    assert missing.status_code == 422
    assert missing.json()["error"]["param"] == "file"
    assert missing.json()["error"]["code"] == "parameter_missing"

    unknown = post(
        "/v1/audio/transcriptions",
        [("file", audio), ("model", (None, "whisper-1")), ("colour", (None, "blue"))],
    )
    assert unknown.status_code == 422
    assert unknown.json()["error"]["code"] == "parameter_unknown"
    assert unknown.json()["error"]["param"] == "colour"

    # A translation takes no language (OpenAI's form).
    language = post(
        "/v1/audio/translations",
        [("file", audio), ("model", (None, "whisper-1")), ("language", (None, "de"))],
    )
    assert language.status_code == 422
    assert language.json()["error"]["param"] == "language"

    # One value inside the bound (above, 2), one outside.
    many = [("timestamp_granularities[]", (None, "word"))] * 3
    granularities = post(
        "/v1/audio/transcriptions", [("file", audio), ("model", (None, "whisper-1")), *many]
    )
    assert granularities.status_code == 422
    assert granularities.json()["error"]["param"] == "timestamp_granularities"

    crowded = [("prompt", (None, "x"))] * 40
    too_many = post("/v1/audio/transcriptions", [("file", audio), *crowded])
    assert too_many.status_code == 400, too_many.text
    assert too_many.json()["error"]["code"] == "malformed_request"
