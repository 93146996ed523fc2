"""The voices the vendors' clients ask for by their own names (compat.voice_aliases): every
OpenAI voice name and every ElevenLabs premade id reads English that whisper-base hears, as a
client gets it through the official SDK from a live server and worker.

Aliases read by the same catalog voice at the same pitch share the work: the two sentences
are spread over them (each alias reads at least one, each voice and pitch both), and the
word error rate is the voice's over all it read."""

from __future__ import annotations

import io
from collections import defaultdict
from pathlib import Path

import httpx
import numpy as np
import pytest
import soundfile

from soundstage.compat.voice_aliases import (
    ELEVENLABS_VOICES,
    ENGLISH_VOICES,
    FAIR_MOS,
    OPENAI_VOICES,
)
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.engines.transcribers.base import Transcriber
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.media.audio import Audio
from tests.support.audio_fixtures import word_error_rate
from tests.support.elevenlabs import ONCE, sdk
from tests.support.factories import Customer, create_customer
from tests.support.openai_sdk import sdk_client

pytestmark = [pytest.mark.slow]

# Short sentences of a voice agent's, heard without a miss from all six English voices
# at 0 and +-2 semitones on the development machine (docs/calibration.md, "Voice aliases").
SENTENCES = (
    "Please call me back this afternoon when you have a moment.",
    "Thank you for calling, how can I help you today?",
)
# The bound: at most one word in twenty misheard.
MAX_WER = 0.05
PCM_RATE = 16_000

Surface = str  # "openai" or "elevenlabs"
Rendering = tuple[str, int]  # (catalog voice, pitch)


def _by_rendering() -> dict[Rendering, list[tuple[Surface, str]]]:
    found: dict[Rendering, list[tuple[Surface, str]]] = defaultdict(list)
    for name, alias in OPENAI_VOICES.items():
        found[(alias.voice_id, alias.pitch)].append(("openai", name))
    for voice_id, alias in ELEVENLABS_VOICES.items():
        found[(alias.voice_id, alias.pitch)].append(("elevenlabs", voice_id))
    return dict(found)


RENDERINGS = _by_rendering()


@pytest.fixture(scope="module")
def whisper(settings: Settings) -> Transcriber:
    return get_transcriber("whisper-base", settings=settings)


@pytest.fixture(scope="module")
def rich(db: Database) -> Customer:
    return create_customer(db, credits_each=100_000)


def spoken(live_url: str, customer: Customer, surface: Surface, alias: str, text: str) -> Audio:
    """The alias reading the text, as the vendor's SDK asks for it."""
    if surface == "openai":
        client = sdk_client(live_url, customer.sandbox_key)
        answer = client.audio.speech.create(
            model="tts-1", voice=alias, input=text, response_format="wav"
        )
        samples, rate = soundfile.read(io.BytesIO(answer.content), dtype="float32")
        return Audio(samples.reshape(len(samples), -1).astype(np.float32), rate)
    data = b"".join(
        sdk(live_url, customer.sandbox_key).text_to_speech.convert(
            alias, text=text, output_format=f"pcm_{PCM_RATE}", request_options=ONCE
        )
    )
    pcm = np.frombuffer(data, dtype="<i2").astype(np.float32) / np.float32(32768)
    return Audio(pcm.reshape(-1, 1), PCM_RATE)


@pytest.mark.parametrize(
    "rendering", list(RENDERINGS), ids=[f"{voice}{pitch:+d}" for voice, pitch in RENDERINGS]
)
def test_every_alias_is_heard(
    live_url: str, rich: Customer, whisper: Transcriber, rendering: Rendering
) -> None:
    aliases = RENDERINGS[rendering]
    said: list[str] = []
    heard: list[str] = []
    for index in range(max(len(SENTENCES), len(aliases))):
        surface, alias = aliases[index % len(aliases)]
        text = SENTENCES[index % len(SENTENCES)]
        audio = spoken(live_url, rich, surface, alias, text)
        transcript = whisper.transcribe(audio, language="en", word_timestamps=False).text
        print(f"{surface} {alias}: {transcript!r}")
        said.append(text)
        heard.append(transcript)
    wer = word_error_rate(" ".join(said), " ".join(heard))
    print(f"{rendering}: WER {wer:.1%} over {len(said)} sentences")
    assert wer <= MAX_WER, (rendering, list(zip(said, heard, strict=True)))


def test_premade_ids_answer_their_catalog_voice(live_url: str, rich: Customer) -> None:
    """GET /v1/voices/{voice_id} of a premade id: the catalog voice under the premade id and
    name; the lists keep to the catalog (the docs' choice)."""
    client = sdk(live_url, rich.sandbox_key)
    george = client.voices.get("JBFqnCBsd6RMkjVDRZzb", request_options=ONCE)
    assert george.voice_id == "JBFqnCBsd6RMkjVDRZzb"
    assert george.name == "George (Alan)"
    assert george.labels is not None
    assert george.labels["accent"] == "Scottish"
    listed = {voice.voice_id for voice in client.voices.get_all(request_options=ONCE).voices}
    assert "voice_alan" in listed
    assert not listed & set(ELEVENLABS_VOICES)


def test_openai_names_stay_distinct() -> None:
    """Thirteen names, thirteen voices or pitches of a voice; every one English."""
    assert len({(a.voice_id, a.pitch) for a in OPENAI_VOICES.values()}) == len(OPENAI_VOICES)
    english = {
        "voice_joe",
        "voice_sally",
        "voice_kal",
        "voice_alan",
        "voice_richard",
        "voice_sarah",
    }
    assert {a.voice_id for a in OPENAI_VOICES.values()} <= english
    assert {a.voice_id for a in ELEVENLABS_VOICES.values()} <= english


def test_aliases_are_chosen_by_the_quality_the_api_shows(live_url: str, rich: Customer) -> None:
    """The rule of compat.voice_aliases, checked against GET /api/v1/voices: the default
    names read the best-rated voice of their kind, and a name reads a voice rated below
    FAIR_MOS only when no rendering of a better voice of its gender was free."""
    listed = httpx.get(
        f"{live_url}/api/v1/voices",
        params={"language": "en", "limit": 100},
        headers=rich.auth(),
        timeout=30,
    ).json()["data"]
    catalog = {v["voice_id"]: v for v in listed}
    for voice_id, english in ENGLISH_VOICES.items():  # the rule's facts are the catalog's
        assert (catalog[voice_id]["gender"], catalog[voice_id]["language"]) == (
            english.gender,
            english.language,
        )
    rated = {voice_id: catalog[voice_id]["quality"]["mos"] for voice_id in ENGLISH_VOICES}
    best = max(rated, key=lambda v: rated[v])
    best_of = {
        g: max((v for v in rated if catalog[v]["gender"] == g), key=lambda v: rated[v])
        for g in ("female", "male")
    }
    assert OPENAI_VOICES["alloy"].voice_id == best
    assert OPENAI_VOICES["nova"].voice_id == best_of["female"]  # the first female name
    assert ELEVENLABS_VOICES["21m00Tcm4TlvDq8ikWAM"].voice_id == best_of["female"]  # Rachel
    assert ELEVENLABS_VOICES["bIHbv24MWmeRgasZH58o"].voice_id == best_of["male"]  # Will
    for table in (OPENAI_VOICES, ELEVENLABS_VOICES):
        taken: set[tuple[str, int]] = set()
        for alias in table.values():
            assert alias.pitch in ENGLISH_VOICES[alias.voice_id].pitches, alias
            gender = catalog[alias.voice_id]["gender"]
            if rated[alias.voice_id] < FAIR_MOS and "only" not in alias.why:
                free = {
                    (v, p)
                    for v, english in ENGLISH_VOICES.items()
                    if english.gender == gender and rated[v] >= FAIR_MOS
                    for p in english.pitches
                } - taken
                assert not free, (alias, free)
            taken.add((alias.voice_id, alias.pitch))


def test_the_docs_print_both_tables() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs"
    openai = (docs / "openai.md").read_text()
    for name, alias in OPENAI_VOICES.items():
        pitch = f"{alias.pitch:+d}" if alias.pitch else "0"
        assert f"| `{name}` | `{alias.voice_id}` | {pitch} | {alias.why} |" in openai, name
    elevenlabs = (docs / "elevenlabs.md").read_text()
    for voice_id, alias in ELEVENLABS_VOICES.items():
        row = f"| `{voice_id}` | {alias.vendor_voice} | `{alias.voice_id}` | {alias.why} |"
        assert row in elevenlabs, voice_id
