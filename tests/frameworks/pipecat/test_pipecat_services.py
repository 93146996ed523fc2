"""pipecat's `ElevenLabsTTSService` (WebSocket, multi-stream-input), `OpenAISTTService` and
`OpenAIRealtimeSTTService` against a live server, with no transport or media server: each service
in a Pipeline driven by
drive.py in pipecat's own virtualenv, only its base URL and key changed. What the TTS says is
heard back by the service's transcriber; what the STT hears is real speech (LibriVox)."""

from __future__ import annotations

import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from soundstage.core.db import Database
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.media.audio import Audio
from tests.support.audio_fixtures import librivox_clips, word_error_rate
from tests.support.factories import Customer, create_customer
from tests.support.framework_venvs import run_script
from tests.support.realtime_audio import librivox_session
from tests.support.realtime_vendors import FRAMEWORK_TEXT, pcm_at, speak_once

pytestmark = pytest.mark.slow

DRIVE = Path(__file__).resolve().parent / "drive.py"
# Two sentences: pipecat sends each as its own text message, with no space between them.
SENTENCE = FRAMEWORK_TEXT
# A script's whole run: pipecat's import, the pipeline, the model's first load in the worker.
RUN_TIMEOUT_S = 300
MAX_WER = 0.10
OUT_RATE = 24000
STT_RATE = 16000
GEORGE = "JBFqnCBsd6RMkjVDRZzb"  # drive.py's voice


@pytest.fixture
def customer(db: Database) -> Customer:
    return create_customer(db, credits_each=5000)


def drive(python: Path, case: str, live_url: str, key: str, **options: Any) -> dict[str, Any]:
    """Run drive.py's `case` in pipecat's virtualenv; its JSON line."""
    result = run_script(python, DRIVE, case, live_url, key, RUN_TIMEOUT_S, **options)
    # Nothing refused, nothing pipecat did not understand.
    assert result["errors"] == [], result["errors"]
    assert result["warnings"] == [], result["warnings"]
    return result


def heard(path: Path) -> str:
    """What the service's own transcriber hears in a 16-bit mono WAV."""
    with wave.open(str(path), "rb") as wav:
        rate = wav.getframerate()
        data = wav.readframes(wav.getnframes())
    samples = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0
    audio = Audio(np.ascontiguousarray(samples.reshape(-1, 1)), rate)
    return get_transcriber().transcribe(audio, language="en", word_timestamps=False).text


def test_elevenlabs_websocket_tts_says_the_text(
    pipecat_python: Path, live_url: str, customer: Customer, tmp_path: Path
) -> None:
    # pipecat counts a context that has no audio 3 s after its text as failed: the server is
    # met as one in use is, its realtime slot started and George's voice loaded (on CI's
    # loaded cores, a first session's start took longer than that).
    assert speak_once(live_url, customer.sandbox_key, GEORGE, f"pcm_{OUT_RATE}")
    out = tmp_path / "said.wav"
    result = drive(
        pipecat_python, "elevenlabs-tts", live_url, customer.sandbox_key, text=SENTENCE, out=out
    )
    # The pipeline's output rate, asked of the WebSocket as pcm_24000.
    assert result["rates"] == [OUT_RATE]
    assert result["seconds"] > 2.0
    transcript = heard(out)
    assert word_error_rate(SENTENCE, transcript) <= MAX_WER, transcript
    # The words pipecat times from the pieces' alignment (what an agent's transcript of its
    # own speech holds): the text's, in order, the sentences' joint too ("home." then
    # "Please", not "home.Please").
    assert result["words"] == SENTENCE.split(), result["words"]


@pytest.mark.parametrize("case", ["openai-stt", "openai-realtime-stt"])
def test_openai_stt_hears_real_speech(
    case: str, pipecat_python: Path, live_url: str, customer: Customer, tmp_path: Path
) -> None:
    session = librivox_session(librivox_clips()[:1])
    audio = tmp_path / "speech.wav"
    with wave.open(str(audio), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(STT_RATE)
        wav.writeframes(pcm_at(session, STT_RATE))
    result = drive(pipecat_python, case, live_url, customer.sandbox_key, audio=audio)
    # One segment (VAD start, the speech, VAD stop): one transcription.
    assert len(result["transcripts"]) == 1, result
    transcript = result["transcripts"][0]
    assert word_error_rate(session.text, transcript) <= MAX_WER, transcript
