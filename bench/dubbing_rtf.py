"""Dubbing wall time per minute of source: POST /api/v1/speech/dubbing (served by `soundstage
serve` with its embedded worker) at the standard and premium tiers, with each stage's share
of the job, against a bare reference chain in the same run: faster-whisper transcription
(whisper-base, beam 5, segments), Apertium eng-spa and espeak-ng per segment, each placed at
its segment's start (no isolation, speakers, casting or fitting), models already loaded.

The source is 60 s of English speech (the LibriVox clips and the pyannote conversation,
16 kHz mono) over pink noise 20 dB down, dubbed into Spanish. What premium buys is measured per
source language: on the three LibriVox clips into Spanish (English: book text and forced
alignment) and on three Spanish sentences said by espeak-ng into English (Spanish: no forced
alignment, so premium is only beam 5 and the reversed isolation pass), each as the source
transcript's word error rate and how far the dub's utterances start from the true starts of
the source's utterances (its first word, and each after a pause of 0.7 s or more).

    .venv/bin/python bench/dubbing_rtf.py
"""

from __future__ import annotations

import io
import json
import subprocess
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import soundfile
import soxr
from _service import served

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
SECONDS = 60
RATE = 16_000


def sixty_seconds_of_speech() -> np.ndarray:
    parts = []
    for path in [
        *sorted((FIXTURES / "librivox").glob("*.flac")),
        FIXTURES / "pyannote" / "sample.flac",
    ]:
        audio, rate = soundfile.read(path, dtype="float32")
        parts += [
            soxr.resample(audio, rate, RATE).astype(np.float32),
            np.zeros(RATE // 2, np.float32),
        ]
    speech = np.concatenate(parts)
    speech = np.tile(speech, -(-SECONDS * RATE // speech.size))[: SECONDS * RATE]
    noise = np.random.default_rng(1).standard_normal(speech.size).astype(np.float32)
    noise *= np.sqrt(np.mean(speech**2) / np.mean(noise**2)) / 10
    return (speech + noise).astype(np.float32)


def dub(
    client: Any, url: str, tier: str, source_language: str = "en", target_language: str = "es"
) -> tuple[float, dict[str, Any]]:
    """The job and its wall time, from acceptance to completion (the job's own timestamps:
    polling slowly stays under the sandbox rate limit without blurring the figure)."""
    body = {"source_language": source_language, "target_language": target_language}
    answer = client.post("/api/v1/speech/dubbing", json={"media_url": url, "tier": tier, **body})
    answer.raise_for_status()
    job_id = answer.json()["job_id"]
    while True:
        time.sleep(2)
        response = client.get(f"/api/v1/jobs/{job_id}")
        response.raise_for_status()
        job = response.json()
        if job["status"] in ("completed", "failed", "cancelled"):
            break
    if job["status"] != "completed":
        raise RuntimeError(job)
    created = datetime.fromisoformat(job["created_at"])
    completed = datetime.fromisoformat(job["completed_at"])
    return (completed - created).total_seconds(), job


def reference(speech: np.ndarray, data_dir: Path) -> float:
    """The bare chain's wall time (models loaded before the clock starts)."""
    from faster_whisper import WhisperModel

    from soundstage.engines.transcribers.models import whisper_base_dir

    model = WhisperModel(str(whisper_base_dir(data_dir)), device="cpu", compute_type="int8")
    list(model.transcribe(speech[: RATE * 5], language="en")[0])  # warm up
    start = time.perf_counter()
    segments = list(model.transcribe(speech, language="en", beam_size=5)[0])
    output = np.zeros(speech.size, np.float32)
    for segment in segments:
        spanish = subprocess.run(
            ["apertium", "-u", "eng-spa"], input=segment.text, capture_output=True, text=True
        ).stdout
        wav = subprocess.run(
            ["espeak-ng", "-v", "es", "--stdout", spanish], capture_output=True
        ).stdout
        said, rate = soundfile.read(io.BytesIO(wav), dtype="float32")
        said = soxr.resample(said, rate, RATE).astype(np.float32)
        first = round(segment.start * RATE)
        piece = said[: max(0, output.size - first)]
        output[first : first + piece.size] += piece
    return time.perf_counter() - start


GAP = RATE * 8 // 10
SPANISH = [
    "El tren de la mañana sale a las ocho y llega a la ciudad antes del mediodía.",
    "Mi hermana trabaja en una biblioteca pequeña cerca del río.",
    "Mañana vamos a comprar pan, queso y fruta en el mercado.",
]


def librivox() -> tuple[np.ndarray, str, list[int]]:
    """The three clips, 0.8 s apart: audio, book text, and the true start of each utterance
    (the first word, and each after a pause of 0.7 s or more, by the forced alignment)."""
    parts, texts, starts = [], [], []
    offset = 0
    for path in sorted((FIXTURES / "librivox").glob("*.flac")):
        audio, rate = soundfile.read(path, dtype="float32")
        audio = soxr.resample(audio, rate, RATE).astype(np.float32)
        texts.append(path.with_suffix(".txt").read_text().strip())
        words = json.loads(path.with_suffix(".align.json").read_text())
        previous_end = None
        for _, start, end in words:
            if previous_end is None or start - previous_end >= 700:
                starts.append(start + offset * 1000 // RATE)
            previous_end = end
        parts += [audio, np.zeros(GAP, np.float32)]
        offset += audio.size + GAP
    return np.concatenate(parts), " ".join(texts), starts


def spanish() -> tuple[np.ndarray, str, list[int]]:
    """Three Spanish sentences said by espeak-ng, 0.8 s apart: audio, text, and where each
    starts (its first sample above the noise floor)."""
    parts, starts = [], []
    offset = 0
    for sentence in SPANISH:
        wav = subprocess.run(
            ["espeak-ng", "-v", "es", "--stdout", sentence], capture_output=True, check=True
        ).stdout
        said, rate = soundfile.read(io.BytesIO(wav), dtype="float32")
        said = soxr.resample(said, rate, RATE).astype(np.float32)
        first = int(np.argmax(np.abs(said) > 0.01))
        starts.append((offset + first) * 1000 // RATE)
        parts += [said, np.zeros(GAP, np.float32)]
        offset += said.size + GAP
    return np.concatenate(parts), " ".join(SPANISH), starts


def tier_quality(
    client: Any, source: tuple[np.ndarray, str, list[int]], source_language: str, target: str
) -> dict[str, tuple[float, float]]:
    """Per tier: the source transcript's word error rate, and the mean distance (ms) of each
    true utterance start from the nearest utterance start of the dub."""
    import jiwer

    audio, text, starts = source
    wav = io.BytesIO()
    soundfile.write(wav, audio, RATE, format="WAV")
    upload = client.post("/api/v1/uploads", files={"file": ("q.wav", wav.getvalue(), "audio/wav")})
    upload.raise_for_status()
    normalize = jiwer.Compose(
        [
            jiwer.ToLowerCase(),
            jiwer.SubstituteRegexes({r"-": " "}),
            jiwer.RemovePunctuation(),
            jiwer.RemoveMultipleSpaces(),
            jiwer.Strip(),
            jiwer.ReduceToListOfListOfWords(),
        ]
    )
    quality = {}
    for tier in ("standard", "premium"):
        body = {"source_language": source_language, "target_language": target}
        result = dub(client, upload.json()["url"], tier, **body)[1]["result"]
        wer = jiwer.wer(
            text,
            result["transcript"],
            reference_transform=normalize,
            hypothesis_transform=normalize,
        )
        said = [u["start_ms"] for u in result["utterances"]]
        offsets = [min(abs(start - s) for s in said) for start in starts]
        quality[tier] = (float(wer), float(np.mean(offsets)))
    return quality


def main() -> None:
    speech = sixty_seconds_of_speech()
    with served(demo_catalog=True, credits=1_000_000) as (client, data_dir):
        wav = io.BytesIO()
        soundfile.write(wav, speech, RATE, format="WAV")
        upload = client.post(
            "/api/v1/uploads", files={"file": ("speech.wav", wav.getvalue(), "audio/wav")}
        )
        upload.raise_for_status()
        url = upload.json()["url"]
        short = io.BytesIO()
        soundfile.write(short, speech[: RATE * 8], RATE, format="WAV")
        warm = client.post(
            "/api/v1/uploads", files={"file": ("warm.wav", short.getvalue(), "audio/wav")}
        )
        warm.raise_for_status()
        for tier in ("standard", "premium"):  # models and voice profiles load once
            dub(client, warm.json()["url"], tier)
        results = {tier: dub(client, url, tier) for tier in ("standard", "premium")}
        quality = {
            "English (LibriVox) into Spanish": tier_quality(client, librivox(), "en", "es"),
            "Spanish (espeak-ng) into English": tier_quality(client, spanish(), "es", "en"),
        }
        bare = reference(speech, data_dir)
    print(f"{SECONDS} s of English speech (16 kHz mono) dubbed into Spanish, 2 cores, warm worker")
    for tier, (elapsed, job) in results.items():
        stages = job["result"]["stage_ms"]
        total = sum(stages.values())
        shares = ", ".join(f"{name} {ms / total:.0%}" for name, ms in stages.items())
        print(
            f"{tier:>8}: {elapsed:6.1f} s wall per minute of source (RTF {elapsed / SECONDS:.2f}); "
            f"stages ({total / 1000:.1f} s): {shares}"
        )
    print(
        f"bare chain (whisper beam 5 + apertium + espeak, no fitting): {bare:.1f} s "
        f"(RTF {bare / SECONDS:.2f})"
    )
    for tier, (elapsed, _) in results.items():
        print(f"ratio {tier} / bare chain: {elapsed / bare:.2f}")
    for source, tiers in quality.items():
        for tier, (wer, offset) in tiers.items():
            print(
                f"{tier:>8}, {source}: source transcript WER {wer:.1%}, utterances start "
                f"{offset:.0f} ms from the true starts on average"
            )


if __name__ == "__main__":
    main()
