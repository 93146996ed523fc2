"""Voice changer real-time factor: POST /api/v1/speech/voice-changer (served by `soundstage
serve` with its embedded worker) against the same two engines called bare in this process
(DeepFilterNet 3 separation, then the resynthesis converter, models already loaded) on the
same 60 s of speech, in one run. RTF = processing time / audio duration. Also prints the bare
chain's split between separation and conversion.

    .venv/bin/python bench/voice_changer_rtf.py [--runs 2] [--voice voice_joe]
"""

from __future__ import annotations

import argparse
import io
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import soundfile
from _service import served

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
SECONDS = 60


def sixty_seconds_of_speech() -> tuple[np.ndarray, int]:
    """The LibriVox clips (one reader, 15 s), then the pyannote sample (two speakers, 30 s),
    repeated to 60 s: reading and conversation."""
    parts = []
    rate = 16_000
    for path in [
        *sorted((FIXTURES / "librivox").glob("*.flac")),
        FIXTURES / "pyannote" / "sample.flac",
    ]:
        samples, rate = soundfile.read(path, dtype="float32", always_2d=True)
        parts.append(samples[:, 0])
    speech = np.concatenate(parts)
    speech = np.tile(speech, -(-SECONDS * rate // speech.size))[: SECONDS * rate]
    return speech.astype(np.float32), rate


def bare_chain(
    speech: np.ndarray, rate: int, engine: str, voice: str, runs: int
) -> dict[str, list[float]]:
    sys.path.insert(0, str(ROOT / "src"))
    from soundstage.config import Settings
    from soundstage.engines.conversion.resynthesis import ResynthesisConverter
    from soundstage.engines.separators.registry import get_separator
    from soundstage.engines.transcribers.registry import get_transcriber
    from soundstage.media.audio import Audio

    settings = Settings(data_dir=Path(tempfile.mkdtemp()))
    converter = ResynthesisConverter(get_transcriber(settings=settings))
    separator = get_separator()
    audio = Audio(speech.reshape(-1, 1), rate)
    # Warm up: models load once, as they do in a worker.
    converter.convert(
        separator.separate(audio).vocals, engine=engine, engine_voice=voice, language="en"
    )
    times: dict[str, list[float]] = {"separate": [], "convert": []}
    for _ in range(runs):
        start = time.perf_counter()
        vocals = separator.separate(audio).vocals
        separated = time.perf_counter()
        converter.convert(vocals, engine=engine, engine_voice=voice, language="en")
        times["separate"].append((separated - start) / SECONDS)
        times["convert"].append((time.perf_counter() - separated) / SECONDS)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--voice", default="voice_joe")
    args = parser.parse_args()
    speech, rate = sixty_seconds_of_speech()
    service = []
    with served(demo_catalog=True, credits=1_000_000) as (client, data_dir):
        # The engine voice behind the catalog voice, for the bare chain.
        with sqlite3.connect(data_dir / "soundstage.db") as db:
            engine, engine_voice = db.execute(
                "SELECT engine, engine_voice FROM voice WHERE id = ?", (args.voice,)
            ).fetchone()
        wav = io.BytesIO()
        soundfile.write(wav, speech, rate, format="WAV", subtype="PCM_16")
        upload = client.post(
            "/api/v1/uploads", files={"file": ("speech.wav", wav.getvalue(), "audio/wav")}
        )
        upload.raise_for_status()
        body = {"audio_url": upload.json()["url"], "voice_id": args.voice, "format": "wav"}
        client.post("/api/v1/speech/voice-changer", json=body).raise_for_status()  # warm up
        for _ in range(args.runs):
            start = time.perf_counter()
            client.post("/api/v1/speech/voice-changer", json=body).raise_for_status()
            service.append((time.perf_counter() - start) / SECONDS)
    bare = bare_chain(speech, rate, engine, engine_voice, args.runs)
    separate, convert = statistics.median(bare["separate"]), statistics.median(bare["convert"])
    ours, ref = statistics.median(service), separate + convert
    print(
        f"60 s of speech (LibriVox + pyannote), {rate} Hz mono, to {args.voice} ({engine}), "
        f"WAV, {args.runs} runs, median"
    )
    print(f"endpoint RTF (HTTP, job, fetch, decode, separate, convert, mix, encode): {ours:.4f}")
    print(f"bare chain RTF (separate + convert, models loaded):                     {ref:.4f}")
    print(f"  of which separation {separate:.4f}, conversion {convert:.4f}")
    print(f"ratio endpoint / bare: {ours / ref:.3f}")


if __name__ == "__main__":
    main()
