"""Speech-to-text real-time factor: POST /api/v1/speech/stt (served by `soundstage serve` with
its embedded worker) against bare faster-whisper (same whisper-base model, int8, beam 5, VAD
filter, same language) on the same 60 s of real speech, in one run; then what diarization adds.
RTF = processing time / audio duration.

    .venv/bin/python bench/stt_rtf.py [--runs 3]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import time
from pathlib import Path

import numpy as np
import soundfile
from _service import served

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
SECONDS = 60
RATE = 16_000


def sixty_seconds_of_speech() -> np.ndarray:
    """The two-speaker pyannote sample and the LibriVox clips, end to end, cut at 60 s."""
    sources = [FIXTURES / "pyannote" / "sample.flac", *sorted(FIXTURES.glob("librivox/*.flac"))]
    parts: list[np.ndarray] = []
    while sum(len(p) for p in parts) < SECONDS * RATE:
        for path in sources:
            samples, rate = soundfile.read(path, dtype="float32")
            assert rate == RATE
            assert samples.ndim == 1
            parts.append(samples)
    return np.concatenate(parts)[: SECONDS * RATE]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    speech = sixty_seconds_of_speech()
    plain, diarized = [], []
    with served(credits=100_000) as (client, data_dir):
        wav = io.BytesIO()
        soundfile.write(wav, speech, RATE, format="WAV")
        upload = client.post(
            "/api/v1/uploads", files={"file": ("speech.wav", wav.getvalue(), "audio/wav")}
        )
        upload.raise_for_status()
        url = upload.json()["url"]
        # Warm up: the worker loads the models once.
        client.post("/api/v1/speech/stt", json={"audio_url": url, "diarize": True})
        for runs, options in ((plain, {}), (diarized, {"diarize": True})):
            for _ in range(args.runs):
                start = time.perf_counter()
                answer = client.post("/api/v1/speech/stt", json={"audio_url": url, **options})
                answer.raise_for_status()
                runs.append((time.perf_counter() - start) / SECONDS)

    from faster_whisper import WhisperModel

    from soundstage.config import Settings
    from soundstage.engines.transcribers.models import whisper_base_dir

    settings = Settings(data_dir=data_dir)
    model = WhisperModel(
        str(whisper_base_dir(settings.data_dir)),
        device="cpu",
        compute_type="int8",
        cpu_threads=settings.stt.cpu_threads or os.cpu_count() or 1,
    )
    options = {"language": "en", "beam_size": 5, "vad_filter": True}
    list(model.transcribe(speech[: RATE * 5], **options)[0])
    bare = []
    for _ in range(args.runs):
        start = time.perf_counter()
        segments, _info = model.transcribe(speech, **options)
        text = " ".join(segment.text for segment in segments)
        bare.append((time.perf_counter() - start) / SECONDS)
    assert text
    ours, ref, with_speakers = (statistics.median(x) for x in (plain, bare, diarized))
    print(f"60 s of real speech (WAV upload), whisper-base int8 beam 5, {args.runs} runs, median")
    print(f"endpoint RTF (HTTP, job, fetch, decode, transcribe): {ours:.4f}")
    print(f"bare faster-whisper RTF (same audio in memory):      {ref:.4f}")
    print(f"ratio endpoint / bare: {ours / ref:.3f}")
    print(f"endpoint RTF with diarize: {with_speakers:.4f} (adds {with_speakers - ours:.4f})")


if __name__ == "__main__":
    main()
