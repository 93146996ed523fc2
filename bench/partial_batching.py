"""What batching the partial decodes of several realtime sessions would save (issue 38, part 4):
N sessions' partials (6 s of the LibriVox session audio each, in 800 encoder frames, greedy, as
engines/transcribers/streaming.py decodes a partial) decoded one at a time, as each slot
process decodes its own today, against all N in one CTranslate2 call (one encoder batch, one
decoder batch), for tiny.en and whisper-base on this machine's cores. Prints both times, their
ratio, the encoder's share, and whether the batched texts are the one-at-a-time texts. First,
where one session's decoding time goes: the whole session audio fed to a recognizer (whisper-
base finals, tiny.en partials) as fast as it decodes, its partials' and finals' time.

    .venv/bin/python bench/partial_batching.py [--sessions 8] [--runs 3]

A slot's partial is decoder-bound (tiny.en, 6 s: about 50 ms of encoder, 110 ms of greedy
decoding, each step a matrix-vector product over the 51,864-token vocabulary); in a batch
each step is a matrix-matrix product, which the cores do far more efficiently.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import ctranslate2
import numpy as np
from faster_whisper.tokenizer import Tokenizer
from stt_realtime import RATE, session_audio

from soundstage.config import Settings
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.transcribers.streaming import StreamingOptions, StreamingRecognizer
from soundstage.engines.transcribers.whisper import WhisperTranscriber

# As a partial of 6 s of speech: the audio and 2 s of padding (streaming.py).
WINDOW_SECONDS = 6
ENCODER_FRAMES = 800
MAX_TOKENS = 6 + 6 * WINDOW_SECONDS  # streaming.partial_token_budget, no forced prefix


def timed(call: Callable[[], Any], runs: int) -> tuple[float, Any]:
    """The median seconds of `runs` calls (after one to warm up), and the last's result."""
    result = call()
    seconds = []
    for _ in range(runs):
        began = time.perf_counter()
        result = call()
        seconds.append(time.perf_counter() - began)
    return statistics.median(seconds), result


class TimedRecognizer(StreamingRecognizer):
    """A recognizer that adds up its decodes' seconds, partials and finals apart."""

    seconds: dict[bool, float]
    count: dict[bool, int]

    def _generate(self, model: Any, samples: np.ndarray, *, final: bool, prefix: str) -> Any:
        began = time.perf_counter()
        try:
            return super()._generate(model, samples, final=final, prefix=prefix)
        finally:
            self.seconds[final] += time.perf_counter() - began
            self.count[final] += 1


def session_breakdown(audio: np.ndarray, settings: Settings) -> None:
    base = get_transcriber("whisper-base", settings=settings)
    tiny = get_transcriber("tiny.en", settings=settings)
    assert isinstance(base, WhisperTranscriber)
    assert isinstance(tiny, WhisperTranscriber)
    recognizer = TimedRecognizer(
        base.model,
        language="en",
        beam_size=base.beam_size,
        options=StreamingOptions(),
        partial_model=tiny.model,
    )
    recognizer.seconds, recognizer.count = {False: 0.0, True: 0.0}, {False: 0, True: 0}
    frame = RATE * 40 // 1000
    for start in range(0, len(audio), frame):
        for _ in recognizer.feed(audio[start : start + frame]):
            pass
    for _ in recognizer.finish():
        pass
    seconds = len(audio) / RATE
    total = sum(recognizer.seconds.values())
    print(
        f"one session, {seconds:.1f} s of audio, decoded in {total:.2f} s "
        f"(RTF {total / seconds:.3f}):"
    )
    for final, kind in ((False, "partials"), (True, "finals")):
        print(
            f"  {kind:8s} {recognizer.count[final]:3d}, {recognizer.seconds[final]:.2f} s "
            f"({recognizer.seconds[final] / total:.0%})"
        )


class Decoder:
    """One model's partial decode, of one window or of a batch of them."""

    def __init__(self, name: str, settings: Settings) -> None:
        transcriber = get_transcriber(name, settings=settings)
        assert isinstance(transcriber, WhisperTranscriber)
        self.model = transcriber.model
        tokenizer = Tokenizer(
            self.model.hf_tokenizer,
            self.model.model.is_multilingual,
            task="transcribe",
            language="en" if self.model.model.is_multilingual else None,
        )
        self.prompt = [*tokenizer.sot_sequence, tokenizer.no_timestamps]

    def features(self, window: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(self.model.feature_extractor(window)[:, :ENCODER_FRAMES])

    def encode(self, batch: list[np.ndarray]) -> Any:
        return self.model.model.encode(ctranslate2.StorageView.from_array(np.stack(batch)))

    def decode(self, batch: list[np.ndarray]) -> list[Any]:
        return list(
            self.model.model.generate(
                self.encode(batch), [self.prompt] * len(batch), beam_size=1, max_length=MAX_TOKENS
            )
        )


def measure(name: str, windows: list[np.ndarray], settings: Settings, runs: int) -> None:
    decoder = Decoder(name, settings)
    features = [decoder.features(w) for w in windows]
    alone, singles = timed(lambda: [decoder.decode([f])[0] for f in features], runs)
    together, batch = timed(lambda: decoder.decode(features), runs)
    encoder_alone, _ = timed(lambda: [decoder.encode([f]) for f in features], runs)
    encoder_together, _ = timed(lambda: decoder.encode(features), runs)
    same = sum(
        a.sequences_ids[0] == b.sequences_ids[0] for a, b in zip(singles, batch, strict=True)
    )
    n = len(windows)
    print(
        f"{name:13s} one at a time {alone * 1000:5.0f} ms ({alone / n * 1000:.0f} ms a partial, "
        f"encoder {encoder_alone / alone:.0%}), batched {together * 1000:5.0f} ms "
        f"({together / n * 1000:.0f} ms a partial, encoder {encoder_together / together:.0%}): "
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
    print(
        f"{args.sessions} partials of {WINDOW_SECONDS} s, {os.cpu_count()} cores, load "
        f"average {os.getloadavg()[0]:.2f}"
    )
    session_breakdown(audio, Settings())
    for name in ("tiny.en", "whisper-base"):
        measure(name, windows, Settings(), args.runs)


if __name__ == "__main__":
    main()
