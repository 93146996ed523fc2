"""SSML and the text front end through POST /api/v1/speech/tts: real engines in a real worker,
the audio measured (silence, duration) and heard by the service's recognizer."""

from __future__ import annotations

import io
import re
from typing import Any

import numpy as np
import pytest
import soundfile
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.tts.frontend import normalize
from soundstage.media.audio import Audio
from soundstage.voices.service import CatalogCounts
from tests.support.api import assert_error
from tests.support.audio_fixtures import longest_silence_ms
from tests.support.factories import Customer, create_customer
from tests.support.pronunciation import SOUND_CHECK_IPA, phoneme_rule

# Audio through the job system: not `services` (the backends are other tests' to cover).
pytestmark = pytest.mark.usefixtures("worker", "demo_catalog")

TTS = "/api/v1/speech/tts"
# Piper's Joe: the catalog's neural voice.
VOICE = "voice_joe"


@pytest.fixture
def rich(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=20_000)


def speak(client: TestClient, customer: Customer, text: str, **body: Any) -> dict[str, Any]:
    response = client.post(
        TTS,
        headers=customer.auth(),
        json={"voice_id": VOICE, "format": "wav", "text": text, **body},
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def audio_of(client: TestClient, settings: Settings, body: dict[str, Any]) -> Audio:
    download = client.get(body["output_url"].removeprefix(settings.public_base_url))
    assert download.status_code == 200
    samples, rate = soundfile.read(io.BytesIO(download.content), dtype="float32", always_2d=True)
    return Audio(np.ascontiguousarray(samples), rate)


def heard(settings: Settings, audio: Audio) -> str:
    transcript = get_transcriber(settings=settings).transcribe(
        audio, language="en", word_timestamps=False
    )
    return transcript.text


def balance(client: TestClient, customer: Customer) -> int:
    body = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert body["reserved"] == 0
    return int(body["balance"])


def test_a_break_is_a_pause_of_its_length_and_markup_is_not_billed(
    client: TestClient, settings: Settings, db: Database, demo_catalog: CatalogCounts
) -> None:
    customer = create_customer(db, credits_each=1000)
    text = '<speak>Hello there &amp; all.<break time="700ms"/>How are you today?</speak>'
    body = speak(client, customer, text)
    content = "Hello there & all.How are you today?"
    assert body["characters_processed"] == body["credits_used"] == len(content)
    assert balance(client, customer) == 1000 - len(content)
    assert 650 <= longest_silence_ms(audio_of(client, settings, body)) <= 800
    # Without the break, the sentence pause alone is shorter.
    plain = speak(client, customer, "Hello there & all. How are you today?")
    assert longest_silence_ms(audio_of(client, settings, plain)) < 600


def test_say_as_characters_spells_the_word(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    spelled = re.compile(r"\bC\W+A\W+T\b", re.IGNORECASE)
    letters = speak(
        client, rich, '<speak>The word is <say-as interpret-as="characters">cat</say-as>.</speak>'
    )
    word = speak(client, rich, "<speak>The word is cat.</speak>")
    # whisper writes the letters as "C-A-T", the word as "cat".
    assert spelled.search(heard(settings, audio_of(client, settings, letters)))
    assert not spelled.search(heard(settings, audio_of(client, settings, word)))
    # NASA: whisper writes "NASA" whether it hears the word or its letters; four letters take
    # far longer to say than two syllables (Piper: about 1.2 s against 0.6 s).
    nasa = speak(client, rich, "The agency is NASA.")
    letters_of_nasa = speak(
        client,
        rich,
        '<speak>The agency is <say-as interpret-as="characters">NASA</say-as>.</speak>',
        timestamps=True,
    )
    assert letters_of_nasa["duration_ms"] - nasa["duration_ms"] >= 300
    words = letters_of_nasa["words"]
    assert [w["word"] for w in words] == ["The", "agency", "is", "NASA."]
    # The written word covers the four letters (about 0.7 s).
    assert words[-1]["end_ms"] - words[-1]["start_ms"] >= 500


def test_sub_reads_the_alias_and_words_stay_as_written(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    text = '<speak>Visit the <sub alias="World Wide Web">WWW</sub> today.</speak>'
    body = speak(client, rich, text, timestamps=True)
    assert "world wide web" in heard(settings, audio_of(client, settings, body)).lower()
    # Billed as spoken: the alias in place of the text it stands for.
    assert body["credits_used"] == len("Visit the World Wide Web today.")
    words = body["words"]
    assert [w["word"] for w in words] == ["Visit", "the", "WWW", "today."]
    # One written word over the three spoken ones.
    alias = words[2]["end_ms"] - words[2]["start_ms"]
    assert alias > words[1]["end_ms"] - words[1]["start_ms"]
    assert alias >= 500
    starts = [w["start_ms"] for w in words]
    assert starts == sorted(starts)


def test_normalized_text_keeps_its_written_words(client: TestClient, rich: Customer) -> None:
    text = "I paid $250 for it on May 3rd."
    words = speak(client, rich, text, timestamps=True)["words"]
    assert [w["word"] for w in words] == text.split()
    money = words[2]
    # "$250" is said as several words ("two hundred fifty dollars"): well over half a second.
    assert money["end_ms"] - money["start_ms"] >= 600
    assert words[1]["end_ms"] <= money["start_ms"] + 50


def test_prosody_rate_slows_the_span(client: TestClient, rich: Customer) -> None:
    sentence = "One two three four five six seven eight."
    normal = speak(client, rich, f"<speak>{sentence}</speak>")["duration_ms"]
    slow = speak(client, rich, f'<speak><prosody rate="slow">{sentence}</prosody></speak>')
    # slow: 0.75 of the rate, 1.33 times as long.
    assert 1.2 <= slow["duration_ms"] / normal <= 1.5, (normal, slow["duration_ms"])


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("<speak>Hello <b>there</b></speak>", "line 1, column 14"),
        ("<speak>\n  Hello <break time='700 ms and more'/></speak>", "line 2, column 9"),
        ('<speak>Hi<break time="10001ms"/></speak>', "line 1, column 10"),
        ("<speak>\n\n<s>unclosed</speak>", "line 3, column 14"),
        ('<speak><say-as interpret-as="cardinal">many</say-as></speak>', "line 1, column 8"),
    ],
)
def test_invalid_ssml_is_422_naming_the_position_and_charges_nothing(
    client: TestClient, db: Database, demo_catalog: CatalogCounts, text: str, where: str
) -> None:
    customer = create_customer(db, credits_each=100)
    for path in (TTS, TTS + "/stream"):
        response = client.post(
            path, headers=customer.auth(), json={"voice_id": VOICE, "text": text}
        )
        error = assert_error(response, 422, "invalid_ssml")
        assert error["param"] == "text"
        assert where in error["message"], error["message"]
    assert balance(client, customer) == 100
    jobs = client.get("/api/v1/jobs", headers=customer.auth())
    assert jobs.status_code == 200
    assert jobs.json()["data"] == []


def test_bounds_of_a_document(client: TestClient, rich: Customer) -> None:
    # 12 deep, 500 elements, 30 s of breaks, one of 10 s: all at their bound.
    inside = (
        "<speak>"
        + "<prosody>" * 11
        + "Wait."
        + "</prosody>" * 11
        + '<break time="10s"/>' * 3
        + "<mark/>" * 485
        + "Done.</speak>"
    )
    body = speak(client, rich, inside, format="mp3")
    assert body["duration_ms"] >= 30_000
    assert body["credits_used"] == len("Wait.Done.")
    outside = [
        inside.replace("<prosody>", "<prosody><prosody>", 1).replace(
            "</prosody>", "</prosody></prosody>", 1
        ),
        inside.replace("Done.", "<mark/>Done."),
        inside.replace('"10s"', '"10001ms"', 1).replace("<mark/>", "", 1),
        inside.replace("Done.", "<break time='1ms'/>Done.").replace("<mark/>", "", 1),
    ]
    for text in outside:
        response = client.post(TTS, headers=rich.auth(), json={"voice_id": VOICE, "text": text})
        assert assert_error(response, 422, "invalid_ssml")["param"] == "text"


def test_request_fields_bounds(client: TestClient, rich: Customer) -> None:
    for field, value in [
        ("apply_text_normalization", "sometimes"),
        ("pronunciation_dictionary_locators", [{"dictionary_id": "pd_x"}] * 4),
    ]:
        response = client.post(
            TTS, headers=rich.auth(), json={"voice_id": VOICE, "text": "Hi.", field: value}
        )
        assert assert_error(response, 422, "parameter_invalid")["param"] == field
    for value in ("auto", "on", "off"):
        body = speak(client, rich, "Hi.", apply_text_normalization=value)
        assert body["credits_used"] == 3


def test_normalization_off_gives_the_voice_the_text_as_written(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    text = "It costs $250 at 3:30 pm on the 12th."
    expanded = " ".join(span.spoken for span in normalize.expand(text, "en-US") if span.spoken)
    assert "two hundred and fifty dollars" in expanded, expanded

    # flite (Alan) says the same text the same way every time.
    def samples(words: str, normalization: str) -> np.ndarray:
        body = speak(
            client, rich, words, voice_id="voice_alan", apply_text_normalization=normalization
        )
        return audio_of(client, settings, body).samples

    on = samples(text, "on")
    assert np.array_equal(on, samples(expanded, "off"))
    assert np.array_equal(on, samples(text, "auto"))
    off = samples(text, "off")
    assert on.shape != off.shape or not np.array_equal(on, off)


def test_a_pronunciation_dictionary_changes_what_is_heard(
    client: TestClient, settings: Settings, db: Database, rich: Customer
) -> None:
    """The issue's example: "Soundstage" given an IPA pronunciation (here "sound check") by a
    dictionary is read that way when the request names the dictionary, and only then."""
    created = client.post(
        "/api/v1/pronunciation-dictionaries",
        headers=rich.auth(),
        json={
            "name": "Brand",
            "rules": [
                phoneme_rule("Soundstage", SOUND_CHECK_IPA),
            ],
        },
    )
    assert created.status_code == 200, created.text
    locator = {
        "dictionary_id": created.json()["id"],
        "version_id": created.json()["latest_version_id"],
    }
    text = "Welcome to Soundstage."
    plain = heard(settings, audio_of(client, settings, speak(client, rich, text))).lower()
    ruled = speak(client, rich, text, pronunciation_dictionary_locators=[locator], timestamps=True)
    with_rule = heard(settings, audio_of(client, settings, ruled)).lower()
    assert "stage" in plain, plain
    assert "check" not in plain, plain
    assert "check" in with_rule, with_rule
    assert "stage" not in with_rule, with_rule
    # The word is still the written one, and billed as written.
    assert [w["word"] for w in ruled["words"]] == text.split()
    assert ruled["credits_used"] == len(text)
    # Another account's dictionary is unknown to this one.
    other = create_customer(db, credits_each=1000)
    response = client.post(
        TTS,
        headers=other.auth(),
        json={"voice_id": VOICE, "text": text, "pronunciation_dictionary_locators": [locator]},
    )
    error = assert_error(response, 404, "pronunciation_dictionary_not_found")
    assert error["param"] == "pronunciation_dictionary_locators[0]"
