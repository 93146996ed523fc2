"""The LiveKit Agents plugins `livekit-plugins-elevenlabs` and `livekit-plugins-openai` against
a live server, with no LiveKit server: each plugin's TTS and STT classes driven by drive.py in
the plugins' own virtualenv, only their base URL and key changed. What the TTS classes say is
heard back by the service's transcriber; what the STT classes hear is real speech (LibriVox)."""

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
from tests.support.realtime_audio import Session, librivox_session
from tests.support.realtime_vendors import FRAMEWORK_TEXT, pcm_at

pytestmark = pytest.mark.slow

DRIVE = Path(__file__).resolve().parent / "drive.py"
SENTENCE = FRAMEWORK_TEXT
# A script's whole run: the plugins' import, the session, the model's first load in the worker.
RUN_TIMEOUT_S = 300
MAX_WER = 0.10


@pytest.fixture
def customer(db: Database) -> Customer:
    return create_customer(db, credits_each=5000)


def drive(python: Path, case: str, live_url: str, key: str, **options: Any) -> dict[str, Any]:
    """Run drive.py's `case` in the plugins' virtualenv; its JSON line."""
    result = run_script(python, DRIVE, case, live_url, key, RUN_TIMEOUT_S, **options)
    # Nothing refused and retried, nothing the plugin did not understand.
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


def speech_wav(session: Session, rate: int, path: Path) -> Path:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(pcm_at(session, rate))
    return path


@pytest.mark.parametrize(
    ("case", "rate"),
    [
        ("elevenlabs-tts-stream", 22050),
        ("elevenlabs-tts-synthesize", 22050),
        ("openai-tts-synthesize", 24000),
        ("openai-tts-stream", 24000),
    ],
)
def test_tts_says_the_text(
    case: str,
    rate: int,
    livekit_python: Path,
    live_url: str,
    customer: Customer,
    tmp_path: Path,
) -> None:
    out = tmp_path / "said.wav"
    result = drive(livekit_python, case, live_url, customer.sandbox_key, text=SENTENCE, out=out)
    # The plugins' default formats (MP3 at 22.05 kHz for ElevenLabs, at 24 kHz for OpenAI),
    # decoded by the plugin into frames at that rate.
    assert result["sample_rate"] == rate
    assert result["channels"] == 1
    assert result["seconds"] > 2.0
    assert result["finals"] >= 1
    transcript = heard(out)
    assert word_error_rate(SENTENCE, transcript) <= MAX_WER, transcript


@pytest.mark.parametrize(
    ("case", "clips", "rate"),
    [
        ("elevenlabs-stt-recognize", 1, 16000),
        ("elevenlabs-stt-stream", 1, 16000),
        ("openai-stt-recognize", 1, 24000),
        ("openai-stt-stream", 2, 24000),
    ],
)
def test_stt_hears_real_speech(
    case: str,
    clips: int,
    rate: int,
    livekit_python: Path,
    live_url: str,
    customer: Customer,
    tmp_path: Path,
) -> None:
    session = librivox_session(librivox_clips()[:clips])
    audio = speech_wav(session, rate, tmp_path / "speech.wav")
    result = drive(
        livekit_python, case, live_url, customer.sandbox_key, audio=audio, utterances=clips
    )
    # One final per utterance the stream's VAD or commit closed, one for a whole buffer.
    assert len(result["finals"]) == clips, result
    transcript = " ".join(result["finals"])
    assert word_error_rate(session.text, transcript) <= MAX_WER, transcript
