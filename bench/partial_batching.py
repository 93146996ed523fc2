"""What decoding the partials of several realtime sessions together saves (issue 38, part 4):
N sessions' partials decoded one call each, as each slot process decoded its own before the
pool's batch process, against all N in one call to engines/transcribers/partials.py (as the
batch process decodes them: one encoder batch, one greedy decoder batch per group of like
lengths), for tiny.en and whisper-base on this machine's cores; the windows 6 s each, then of
1.5 to 9 s (seeded), each prompted with a session's text as a realtime partial is. Prints both
times, their ratio, and how many batched texts are the one-at-a-time texts. First, where one
session's decoding time goes: the whole session audio fed to a recognizer (whisper-base
finals, tiny.en partials, decoded in this process) as fast as it decodes.

    .venv/bin/python bench/partial_batching.py [--sessions 8] [--runs 3]

A partial is decoder-bound (tiny.en, 6 s: about 50 ms of encoder, 110 ms of greedy decoding,
each step a matrix-vector product over the 51,864-token vocabulary); in a batch each step is
a matrix-matrix product, which the cores do far more efficiently.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from stt_realtime import RATE, session_audio

from soundstage.config import Settings
from soundstage.engines.transcribers.partials import (
    LocalPartials,
    PartialRequest,
    decode_partials,
)
from soundstage.engines.transcribers.streaming import (
    StreamingOptions,
    StreamingRecognizer,
    whisper_model,
)

WINDOW_SECONDS = 6
# A session's text before the utterance, as a partial is prompted with (its last 32 tokens).
PROMPT = (
    "He was not an ill-disposed young man, unless to be rather cold-hearted and rather "
    "selfish is to be ill-disposed."
)


def timed(call: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """The median seconds of `runs` calls (after one to warm up), and the last's result."""
    result = call()
    seconds = []
    for _ in range(runs):
        began = time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - began)
    return statistics.median(seconds), result


# Seconds and decodes, partials' and finals' apart.
SPENT = {"partials": 0.0, "finals": 0.0}
COUNTS = {"partials": 0, "finals": 0}


@contextmanager
def clocked(kind: str) -> Iterator[None]:
    began = time.perf_counter()
    try:
        yield
    finally:
        SPENT[kind] += time.perf_counter() - began
        COUNTS[kind] += 1


class TimedPartials(LocalPartials):
    """Partials decoded here, timed."""

    def submit(self, model: str, request: PartialRequest) -> bool:
        with clocked("partials"):
            return super().submit(model, request)


class TimedRecognizer(StreamingRecognizer):
    """A recognizer whose finals are timed."""

    def _generate(self, model: Any, samples: np.ndarray) -> Any:
        with clocked("finals"):
            return super()._generate(model, samples)


def session_breakdown(audio: np.ndarray, settings: Settings) -> None:
    base = whisper_model("whisper-base", settings)
    recognizer = TimedRecognizer(
        base,
        name="whisper-base",
        language="en",
        beam_size=settings.stt.beam_size,
        options=StreamingOptions(),
        partial_model="tiny.en",
        partials=TimedPartials(lambda name: whisper_model(name, settings)),
    )
    frame = RATE * 40 // 1000
    for start in range(0, len(audio), frame):
        for _ in recognizer.feed(audio[start : start + frame]):
            pass
    for _ in recognizer.finish():
        pass
    seconds = len(audio) / RATE
    spent, counts = SPENT, COUNTS
    total = sum(spent.values())
    print(
        f"one session, {seconds:.1f} s of audio, decoded in {total:.2f} s "
        f"(RTF {total / seconds:.3f}):"
    )
    for kind in ("partials", "finals"):
        print(f"  {kind:8s} {counts[kind]:3d}, {spent[kind]:.2f} s ({spent[kind] / total:.0%})")


def measure(name: str, windows: list[np.ndarray], settings: Settings, runs: int) -> None:
    """The windows' partials one call each (as each slot process decoded its own), then all
    in one call (as the pool's batch process does: engines/transcribers/partials.py)."""
    model = whisper_model(name, settings)
    requests = [PartialRequest(window, "en", prompt=PROMPT) for window in windows]
    alone, singles = timed(lambda: [decode_partials(model, [r])[0] for r in requests], runs)
    together, batch = timed(lambda: decode_partials(model, requests), runs)
    same = sum(a == b for a, b in zip(singles, batch, strict=True))
    n = len(windows)
    print(
        f"{name:13s} one at a time {alone * 1000:5.0f} ms ({alone / n * 1000:.0f} ms a partial), "
        f"batched {together * 1000:5.0f} ms ({together / n * 1000:.0f} ms a partial): "
        f"ratio {alone / together:.2f}x; same text {same}/{n}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    audio, _, _ = session_audio()
    step = (len(audio) / RATE - WINDOW_SECONDS) / args.sessions
    windows = [
        audio[int(i * step * RATE) : int((i * step + WINDOW_SECONDS) * RATE)]
        for i in range(args.sessions)
    ]
    rng = np.random.default_rng(1)
    varied = []
    for _ in range(args.sessions):
        start, seconds = rng.uniform(0, len(audio) / RATE - 9), rng.uniform(1.5, 9)
        varied.append(audio[int(start * RATE) : int((start + seconds) * RATE)])
    print(
        f"{args.sessions} partials, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}"
    )
    session_breakdown(audio, Settings())
    for name in ("tiny.en", "whisper-base"):
        print(f"{WINDOW_SECONDS} s each:", end=" ")
        measure(name, windows, Settings(), args.runs)
        print("1.5-9 s:", end=" ")
        measure(name, varied, Settings(), args.runs)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
