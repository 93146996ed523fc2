"""Japanese through POST /api/v1/speech/tts: Kokoro-82M's five voices in a real worker, each
reading sentences written for this test that whisper-base reads back (character error rate),
numbers and times read in Japanese, timestamps in order, an SSML break a pause, and an IPA
<phoneme> said as written."""

from __future__ import annotations

import itertools
import re
from typing import Any

import jiwer
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.engines.transcribers.base import Transcriber
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.tts.frontend.languages import ja
from soundstage.media.audio import Audio
from soundstage.voices.service import CatalogCounts
from tests.support.api import every_page
from tests.support.audio_fixtures import download_audio, longest_silence_ms
from tests.support.factories import Customer, create_customer

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("worker", "demo_catalog")]

TTS = "/api/v1/speech/tts"
VOICES = ("voice_ja_alpha", "voice_ja_gongitsune", "voice_ja_nezumi", "voice_ja_tebukuro")
MALE = "voice_ja_kumo"
# Everyday sentences, written for this test; a time in digits in the last.
SENTENCES = (
    "今日はとても良い天気ですね。",
    "駅の近くに新しい図書館ができました。",
    "会議は15:30から始まります。",
)
# The bound: at most one character in ten misheard (measured 0 for every voice).
MAX_CER = 0.10
# Sentences each voice reads: two of the three, in turn, so that every sentence is read by
# three or four voices, and each voice 29 to 33 characters (three or four misheard fail it).
# Kokoro's synthesis takes most of this module's time (about 6 s a sentence on a loaded CI
# machine's one thread a process): all three from every voice measured nothing more.
SENTENCES_PER_VOICE = 2


def sentences_of(voice_id: str) -> list[str]:
    first = [*VOICES, MALE].index(voice_id)
    return [SENTENCES[(first + i) % len(SENTENCES)] for i in range(SENTENCES_PER_VOICE)]


@pytest.fixture(scope="module")
def rich(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=20_000)


@pytest.fixture(scope="module")
def whisper(settings: Settings) -> Transcriber:
    return get_transcriber("whisper-base", settings=settings)


def characters(text: str) -> str:
    """What a reading is compared by: numbers in kanji numerals, no punctuation or spaces."""
    return re.sub(r"[^\w]", "", ja.read(text))


def speak(client: TestClient, customer: Customer, voice_id: str, text: str, **body: Any) -> Any:
    response = client.post(
        TTS,
        headers=customer.auth(),
        json={"voice_id": voice_id, "format": "wav", "text": text, **body},
    )
    assert response.status_code == 200, response.text
    return response.json()


def heard(whisper: Transcriber, audio: Audio) -> str:
    return whisper.transcribe(audio, language="ja", word_timestamps=False).text


@pytest.mark.parametrize("voice_id", [*VOICES, MALE])
def test_each_voice_is_read_back(
    client: TestClient,
    settings: Settings,
    rich: Customer,
    whisper: Transcriber,
    voice_id: str,
) -> None:
    said, got = [], []
    for text in sentences_of(voice_id):
        body = speak(client, rich, voice_id, text, timestamps=True)
        audio = download_audio(client, settings, body["output_url"])
        said.append(characters(text))
        got.append(characters(heard(whisper, audio)))
        times = [(word["start_ms"], word["end_ms"]) for word in body["words"]]
        assert [word["word"] for word in body["words"]] == text.split()
        assert all(start <= end for start, end in times)
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(times))
        assert times[-1][1] <= body["duration_ms"]
    cer = jiwer.cer(" ".join(said), " ".join(got))
    print(f"{voice_id}: CER {cer:.1%}: {got}")
    assert cer <= MAX_CER, list(zip(said, got, strict=True))


def test_words_come_in_order_where_the_text_is_spaced(client: TestClient, rich: Customer) -> None:
    text = "おはようございます。 今日は 3月5日 です。 午後から 雨が 降ります。"
    body = speak(client, rich, MALE, text, timestamps=True)
    words = body["words"]
    assert [word["word"] for word in words] == text.split()
    starts = [word["start_ms"] for word in words]
    assert starts == sorted(starts)
    assert words[0]["start_ms"] < words[-1]["start_ms"]
    assert all(word["end_ms"] > word["start_ms"] for word in words)


def test_a_break_is_a_pause_and_a_phoneme_is_said_as_written(
    client: TestClient, settings: Settings, rich: Customer, whisper: Transcriber
) -> None:
    broken = speak(
        client,
        rich,
        VOICES[0],
        '<speak>こんにちは。<break time="900ms"/>ありがとうございます。</speak>',
    )
    assert longest_silence_ms(download_audio(client, settings, broken["output_url"])) >= 850
    plain = speak(client, rich, VOICES[0], "こんにちは。ありがとうございます。")
    assert longest_silence_ms(download_audio(client, settings, plain["output_url"])) < 800

    # "猫" read by its IPA as いぬ (dog): the phonemes win over the writing. Whisper writes
    # the word it hears in any of its scripts (犬, いぬ, イヌ): the reading is what counts.
    ssml = '<speak>あれは<phoneme alphabet="ipa" ph="inɯ">猫</phoneme>です。</speak>'
    body = speak(client, rich, VOICES[0], ssml)
    transcript = heard(whisper, download_audio(client, settings, body["output_url"]))
    assert "猫" not in transcript, transcript
    assert any(dog in transcript for dog in ("犬", "いぬ", "イヌ")), transcript


def test_japanese_dubs_into_english_and_is_no_target(client: TestClient, rich: Customer) -> None:
    """Whisper translates Japanese speech into English; nothing translates into Japanese."""
    pairs = list(every_page(client, rich, "/api/v1/speech/dubbing/languages"))
    into_english = [
        p for p in pairs if (p["source_language"], p["target_language"]) == ("ja", "en")
    ]
    assert [p["translator"] for p in into_english] == ["whisper"]
    assert into_english[0]["voices"] >= 6
    assert not [p for p in pairs if p["target_language"] == "ja"]
