"""Whisper's encoder given the audio and 10 s after it (at least 15 s) against its whole 30 s
window, as faster-whisper runs it: the words each hears and the CPU time each spends, on
phrases (eight of a second or two, read by six English catalog voices), short recordings
(each of eight everyday sentences read by the same voices, each LibriVox clip alone: what a
voice agent's segmented STT and most requests send) and on longer
ones (each voice's eight sentences in one recording, the LibriVox clips in one session, the
pyannote sample's two speakers), whisper-base with the service's beam (5), one thread, in this
process. Prints each group's errors and CPU time both ways and the ratios.

    .venv/bin/python bench/stt_short_window.py [--model whisper-base] [--voices 6]
        [--short-only]

--short-only leaves the long recordings out. The rule's values are constants of
engines/transcribers/whisper.py (`_MIN_ENCODER_FRAMES`, `_PADDING_FRAMES`): edit them to try
others (docs/speech.md has the figures of those tried).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from math import gcd
from pathlib import Path

import numpy as np
import soundfile
from scipy.signal import resample_poly
from stt_finals_wer import PYANNOTE, SENTENCES, VOICES, read_aloud
from stt_realtime import LIBRIVOX, RATE, session_audio, wer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.audio_fixtures import transcript_words

from soundstage.config import Settings, SttSettings
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.transcribers.whisper import WhisperTranscriber, encoder_frames
from soundstage.engines.tts.registry import get_engine
from soundstage.media.audio import Audio

Source = tuple[str, np.ndarray, str]

# What a voice agent hears most: a second or two.
PHRASES = [
    "Yes, please.",
    "Hello there.",
    "Call me back later.",
    "Thank you very much.",
    "I said hello to them.",
    "Welcome to the sound check.",
    "See you tomorrow.",
    "No, not today.",
]


def phrase_sources(voices: int) -> list[Source]:
    return [
        (f"{engine}/{voice} '{phrase}'", read_aloud_one(engine, voice, phrase), phrase)
        for engine, voice in VOICES[:voices]
        for phrase in PHRASES
    ]


def short_sources(voices: int) -> list[Source]:
    sources: list[Source] = []
    for engine, voice in VOICES[:voices]:
        for index, sentence in enumerate(SENTENCES):
            audio = read_aloud_one(engine, voice, sentence)
            sources.append((f"{engine}/{voice} #{index}", audio, sentence))
    for path in sorted(LIBRIVOX.glob("*.flac")):
        samples, rate = soundfile.read(path, dtype="float32")
        assert rate == RATE
        sources.append((path.stem, samples, path.with_suffix(".txt").read_text().strip()))
    return sources


def read_aloud_one(engine: str, voice: str, sentence: str) -> np.ndarray:
    """One sentence in the voice, 16 kHz mono, with 0.3 s of silence before and after."""
    audio = get_engine(engine).synthesize(sentence, voice)
    step = gcd(audio.sample_rate, RATE)
    samples = resample_poly(audio.samples.mean(axis=1), RATE // step, audio.sample_rate // step)
    gap = np.zeros(int(RATE * 0.3), dtype=np.float32)
    return np.concatenate([gap, samples.astype(np.float32), gap])


def long_sources(voices: int) -> list[Source]:
    sources: list[Source] = [
        (f"{engine}/{voice}", read_aloud(engine, voice), " ".join(SENTENCES))
        for engine, voice in VOICES[:voices]
    ]
    librivox, _, text = session_audio()
    sources.append(("LibriVox session", librivox, text))
    lines = [line.split(None, 5) for line in (PYANNOTE / "sample.stm").read_text().splitlines()]
    pyannote, rate = soundfile.read(PYANNOTE / "sample.flac", dtype="float32")
    assert rate == RATE
    sources.append(("pyannote sample", pyannote, " ".join(line[5].strip() for line in lines)))
    return sources


def measure(
    transcribe: Callable[[np.ndarray], str], sources: list[Source]
) -> tuple[int, int, float, dict[str, str]]:
    """(errors, words, CPU seconds, what each source was heard as)."""
    errors = words = 0
    cpu = 0.0
    heard: dict[str, str] = {}
    for name, audio, reference in sources:
        start = time.process_time()
        text = transcribe(audio)
        cpu += time.process_time() - start
        count = len(transcript_words(reference))
        errors += round(wer(reference, text) * count)
        words += count
        heard[name] = text
    return errors, words, cpu, heard


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="whisper-base")
    parser.add_argument("--voices", type=int, default=len(VOICES))
    parser.add_argument("--short-only", action="store_true")
    args = parser.parse_args()
    settings = Settings(stt=SttSettings(cpu_threads=1))
    loaded = get_transcriber(args.model, settings=settings)
    assert isinstance(loaded, WhisperTranscriber)
    short, whole = loaded.with_short_windows(True), loaded.with_short_windows(False)

    def using(transcriber: WhisperTranscriber) -> Callable[[np.ndarray], str]:
        def transcribe(audio: np.ndarray) -> str:
            clip = Audio(np.ascontiguousarray(audio.reshape(-1, 1)), RATE)
            return transcriber.transcribe(clip, language="en", word_timestamps=False).text

        return transcribe

    # Warm up: the model's first decode.
    using(short)(np.zeros(RATE, dtype=np.float32))
    windows = ", ".join(
        f"{encoder_frames(RATE * seconds) / 100:g} s for {seconds} s" for seconds in (3, 7, 20)
    )
    print(
        f"{args.model}, beam {short.beam_size}, one thread, the encoder given {windows} of "
        f"audio; {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}"
    )
    groups = [
        ("phrases", phrase_sources(args.voices)),
        ("short recordings", short_sources(args.voices)),
    ]
    if not args.short_only:
        groups.append(("long recordings", long_sources(args.voices)))
    for group, sources in groups:
        seconds = sum(len(audio) for _, audio, _ in sources) / RATE
        # Alternated, so that a change of the machine's load falls on both.
        e_whole, words, c_whole, h_whole = measure(using(whole), sources)
        e_short, _, c_short, h_short = measure(using(short), sources)
        print(
            f"{group} ({len(sources)}, {seconds:.0f} s of audio, {words} words): "
            f"whole window {e_whole} errors (WER {e_whole / words:.3f}), CPU {c_whole:.1f} s "
            f"(RTF {c_whole / seconds:.3f}); short {e_short} errors (WER {e_short / words:.3f}), "
            f"CPU {c_short:.1f} s (RTF {c_short / seconds:.3f}); CPU ratio short / whole "
            f"{c_short / c_whole:.2f}"
        )
        for name in h_whole:
            if h_whole[name] != h_short[name]:
                pad = " " * len(name)
                print(f"  {name}: whole {h_whole[name]!r}\n  {pad}  short {h_short[name]!r}")


if __name__ == "__main__":
    main()
