"""Realtime finals against the offline transcription, on more speech than the LibriVox clips:
six English catalog voices each reading eight everyday sentences (1.5 s of silence between),
the LibriVox session of bench/stt_realtime.py and the pyannote sample (two people talking,
tests/fixtures/pyannote). Each is sent in 40 ms frames to a realtime transcription handler in
this process (whisper-base finals, as a slot decodes them with the cores to itself), and
transcribed offline by the same model (what POST /api/v1/speech/stt runs). Prints each
source's errors, finals and offline, and the words the finals got wrong; then the totals.

    .venv/bin/python bench/stt_finals_wer.py
"""

from __future__ import annotations

import sys
from math import gcd
from pathlib import Path

import numpy as np
import soundfile
from scipy.signal import resample_poly
from stt_realtime import RATE, differences, session_audio, wer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.audio_fixtures import transcript_words
from tests.support.realtime import lone_share

from soundstage.config import Settings
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.tts.registry import get_engine
from soundstage.media.audio import Audio
from soundstage.speech.stt.realtime import open_session
from soundstage.speech.stt.realtime_messages import SttRealtimeOpening

SENTENCES = [
    "The morning train was late again, so we walked along the river to the office.",
    "Please leave the package at the front door if nobody answers the bell.",
    "She opened the window and listened to the birds singing in the garden.",
    "The weather was cold and clear when we left the house.",
    "We walked along the river to the old bridge, where a small boat was waiting.",
    "My brother bought a new bicycle last week, but he has not ridden it yet.",
    "Could you tell me how long it takes to get to the museum from here?",
    "The children were playing quietly in the next room while their parents talked.",
]
VOICES = [
    ("piper", "en_US-joe-medium"),
    ("festival", "cmu_us_slt_arctic_hts"),
    ("festival", "kal_diphone"),
    ("flite", "awb"),
    ("flite", "rms"),
    ("flite", "slt"),
]
PYANNOTE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "pyannote"
GAP_S = 1.5


def read_aloud(engine: str, voice: str) -> np.ndarray:
    """The sentences in the voice, 16 kHz mono, with silence before, between and after."""
    gap = np.zeros(int(RATE * GAP_S), dtype=np.float32)
    parts = [gap]
    for sentence in SENTENCES:
        audio = get_engine(engine).synthesize(sentence, voice)
        samples = audio.samples.mean(axis=1)
        step = gcd(audio.sample_rate, RATE)
        samples = resample_poly(samples, RATE // step, audio.sample_rate // step)
        parts += [samples.astype(np.float32), gap]
    return np.concatenate(parts)


def finals(settings: Settings, audio: np.ndarray) -> str:
    handler = open_session(
        settings, SttRealtimeOpening.model_validate({"language": "en"}), lone_share()
    )
    pcm = (np.clip(audio, -1, 1) * 32767).astype("<i2").tobytes()
    step = RATE * 40 // 1000 * 2
    messages = []
    for start in range(0, len(pcm), step):
        messages += list(handler.handle(pcm[start : start + step]))
    messages += list(handler.close())
    said = [m.model_dump(mode="json") for m in messages]
    return " ".join(m["text"] for m in said if m["type"] == "final")


def main() -> None:
    settings = Settings()
    sources: dict[str, tuple[np.ndarray, str]] = {
        f"{engine}/{voice}": (read_aloud(engine, voice), " ".join(SENTENCES))
        for engine, voice in VOICES
    }
    librivox, _, text = session_audio()
    sources["LibriVox clips"] = (librivox, text)
    lines = [line.split(None, 5) for line in (PYANNOTE / "sample.stm").read_text().splitlines()]
    pyannote, rate = soundfile.read(PYANNOTE / "sample.flac", dtype="float32")
    assert rate == RATE
    sources["pyannote sample"] = (pyannote, " ".join(line[5].strip() for line in lines))
    offline = get_transcriber("whisper-base", settings=settings)
    words = finals_errors = offline_errors = 0
    for name, (audio, reference) in sources.items():
        said = finals(settings, audio)
        heard = offline.transcribe(
            Audio(audio.reshape(-1, 1), RATE), language="en", word_timestamps=False
        ).text
        count = len(transcript_words(reference))
        live, alone = (round(wer(reference, text) * count) for text in (said, heard))
        changes = differences(reference, said)
        words, finals_errors, offline_errors = (
            words + count,
            finals_errors + live,
            offline_errors + alone,
        )
        print(f"{name}: finals {live}/{count}, offline {alone}/{count}; finals: {changes}")
    print(
        f"all: finals {finals_errors}/{words} (WER {finals_errors / words:.3f}), offline "
        f"{offline_errors}/{words} (WER {offline_errors / words:.3f})"
    )


if __name__ == "__main__":
    main()
