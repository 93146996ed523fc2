"""Per-character times derived from word times: ElevenLabs' `alignment` of the TTS job's
words (`timestamps: true`: every whitespace-separated word of the text with its start and
end), and the `characters` of forced alignment.

How (documented in docs/elevenlabs.md): a word's letters and digits share the word's span equally,
in order; everything between two words' letters (the punctuation that ends one, the spaces,
the punctuation that opens the next) shares the gap between the two spans equally. What
precedes the first word fills the time from 0 to it, what follows the last word the time from
its end to the end of the audio. Times never go backwards: every start is at or after the
previous character's start, every end at or after its start."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_TOKEN = re.compile(r"\S+")


@dataclass(frozen=True)
class WordSpan:
    start_ms: int
    end_ms: int


@dataclass(frozen=True)
class CharacterTimes:
    characters: list[str]
    starts: list[float]
    ends: list[float]


def _core(text: str, start: int, end: int) -> tuple[int, int]:
    """The part of the token text[start:end] from its first to its last letter or digit (the
    whole token if it has none)."""
    first = next((i for i in range(start, end) if text[i].isalnum()), None)
    if first is None:
        return start, end
    last = next(i for i in range(end - 1, start - 1, -1) if text[i].isalnum())
    return first, last + 1


def _share(times: list[tuple[float, float]], count: int, start_ms: float, end_ms: float) -> None:
    step = (end_ms - start_ms) / count if count else 0.0
    times.extend((start_ms + i * step, start_ms + (i + 1) * step) for i in range(count))


def character_times(text: str, words: Sequence[WordSpan], duration_ms: int) -> CharacterTimes:
    """Times of every character of `text`, given the times of its whitespace-separated words
    in order (as many as there are). Seconds, to the millisecond."""
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    if len(tokens) != len(words):
        # The job aligns exactly the text's words; anything else spreads the text evenly.
        tokens, words = [(0, len(text))], [WordSpan(0, duration_ms)]
    times: list[tuple[float, float]] = []
    position, previous_end = 0, 0.0
    for (start, end), span in zip(tokens, words, strict=True):
        core_start, core_end = _core(text, start, end)
        word_start = max(float(span.start_ms), previous_end)
        word_end = max(float(span.end_ms), word_start)
        _share(times, core_start - position, previous_end, word_start)
        _share(times, core_end - core_start, word_start, word_end)
        position, previous_end = core_end, word_end
    _share(times, len(text) - position, previous_end, max(float(duration_ms), previous_end))
    starts, ends = [], []
    floor = 0.0
    for start_ms, end_ms in times:
        floor = max(floor, round(start_ms / 1000, 3))
        starts.append(floor)
        ends.append(max(floor, round(end_ms / 1000, 3)))
    return CharacterTimes(list(text), starts, ends)
